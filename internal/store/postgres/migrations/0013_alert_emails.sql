-- Alert emails (internal/alerts email.go, internal/alertmail; issue 25's
-- second channel): an alert that emails (alerts.email) sends each firing to
-- its account's verified address too, and holds the token of its emails'
-- one-click unsubscribe link (email_token: 64 hex digits, '' until its
-- email is first turned on; unique, as the link finds the alert by it).
-- Both columns have constant defaults: adding them rewrites nothing, and
-- the evaluation's updates of last_version stay heap-only (0012), as they
-- change no indexed column.
-- The emails are queued in alert_emails, one per event, claimed with a
-- lease like webhook_deliveries (FOR UPDATE SKIP LOCKED: the replicas share
-- them): state pending (due at next_at), sending (next_at: the lease's
-- end), sent (at sent_at), failed, cancelled (the alert was deleted or
-- stopped emailing, or the address is not verified) or capped (past the
-- account's emails per hour, never sent); error says why an attempt failed
-- or why it was not sent. card_name is the card's name at the firing's
-- version.

ALTER TABLE alerts
	ADD COLUMN email       boolean NOT NULL DEFAULT false,
	ADD COLUMN email_token text NOT NULL DEFAULT '';

CREATE UNIQUE INDEX alerts_email_token ON alerts (email_token) WHERE email_token <> '';

CREATE TABLE alert_emails (
	id         bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
	event_id   text NOT NULL UNIQUE REFERENCES alert_events (id),
	account_id bigint NOT NULL,
	alert_id   bigint NOT NULL,
	card_name  text NOT NULL,
	state      text NOT NULL CHECK (state IN ('pending', 'sending', 'sent', 'failed', 'cancelled', 'capped')),
	attempts   integer NOT NULL,
	next_at    timestamptz NOT NULL,
	created_at timestamptz NOT NULL,
	sent_at    timestamptz,
	error      text NOT NULL DEFAULT ''
);

CREATE INDEX alert_emails_due ON alert_emails (next_at) WHERE state IN ('pending', 'sending');
-- The account's emails of the last hour (the cap), and its list.
CREATE INDEX alert_emails_account ON alert_emails (account_id, created_at);
