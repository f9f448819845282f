-- card.changed subscriptions (internal/alerts, issue 25): an account's
-- webhook endpoint gets, for each catalogue version, the cards of a set, or
-- of a list of cards, that changed in it (one event, or several of at most
-- alerts.MaxEventCards cards each). A subscription goes with its endpoint.
-- last_version is the newest catalogue version evaluated (0: none yet),
-- last_at that version's creation time (NULL: none), after which the next
-- evaluation reads the change feed. Its events are kept and delivered as
-- the alerts' (alert_events, webhook_deliveries), marked with the
-- subscription's id.

CREATE TABLE card_subscriptions (
	id           bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
	account_id   bigint NOT NULL REFERENCES accounts (id),
	webhook_id   bigint NOT NULL REFERENCES webhook_endpoints (id) ON DELETE CASCADE,
	game         text NOT NULL,
	set_id       text NOT NULL, -- '' for a card list
	cards        text[] NOT NULL, -- the card ids; empty for a set
	created_at   timestamptz NOT NULL,
	last_version bigint NOT NULL,
	last_at      timestamptz
);

CREATE INDEX card_subscriptions_account ON card_subscriptions (account_id);
CREATE INDEX card_subscriptions_webhook ON card_subscriptions (webhook_id);

ALTER TABLE alert_events ADD COLUMN subscription_id bigint NOT NULL DEFAULT 0;
