-- card.changed subscriptions (internal/alerts, issue 25): an account's
-- webhook endpoint gets, for each catalogue version, the cards of a set, or
-- of a list of cards, that changed in it (one event, or several of at most
-- alerts.MaxEventCards cards each). A subscription goes with its endpoint.
-- last_version is the newest catalogue version evaluated (0: none yet),
-- last_at that version's creation time, after which the next evaluation
-- reads the change feed. Its events are kept and delivered as the alerts'
-- (alert_events, webhook_deliveries), marked with the subscription's id.
-- Times are microseconds since the Unix epoch, UTC.

CREATE TABLE card_subscriptions (
	id           INTEGER PRIMARY KEY AUTOINCREMENT,
	account_id   INTEGER NOT NULL REFERENCES accounts (id),
	webhook_id   INTEGER NOT NULL REFERENCES webhook_endpoints (id) ON DELETE CASCADE,
	game         TEXT NOT NULL,
	set_id       TEXT NOT NULL, -- '' for a card list
	cards        TEXT NOT NULL, -- the card ids, one per line; '' for a set
	created_at   INTEGER NOT NULL,
	last_version INTEGER NOT NULL,
	last_at      INTEGER NOT NULL
);

CREATE INDEX card_subscriptions_account ON card_subscriptions (account_id);
CREATE INDEX card_subscriptions_webhook ON card_subscriptions (webhook_id);

ALTER TABLE alert_events ADD COLUMN subscription_id INTEGER NOT NULL DEFAULT 0;
