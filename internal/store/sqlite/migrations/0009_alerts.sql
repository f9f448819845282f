-- Price alerts and signed webhooks (internal/alerts, internal/webhooks,
-- issue 25): an account's webhook endpoints (the signing secret kept to
-- sign); its alerts with their evaluation's state (armed, the last
-- catalogue version evaluated and the price read then); the events the
-- alerts fired (the JSON sent, as sent); and the delivery queue, one row per
-- event and endpoint, claimed with a lease, with every attempt's log.
-- Times are microseconds since the Unix epoch, UTC, 0 for none; money is in
-- cents.

CREATE TABLE webhook_endpoints (
	id         INTEGER PRIMARY KEY AUTOINCREMENT,
	account_id INTEGER NOT NULL REFERENCES accounts (id),
	url        TEXT NOT NULL,
	secret     TEXT NOT NULL,
	created_at INTEGER NOT NULL
);

CREATE INDEX webhook_endpoints_account ON webhook_endpoints (account_id);

CREATE TABLE alerts (
	id           INTEGER PRIMARY KEY AUTOINCREMENT,
	account_id   INTEGER NOT NULL REFERENCES accounts (id),
	game         TEXT NOT NULL,
	card_id      TEXT NOT NULL,
	source       TEXT NOT NULL CHECK (source IN ('tcg', 'cm')),
	finish       TEXT NOT NULL,
	rule         TEXT NOT NULL CHECK (rule IN ('above', 'below', 'move')),
	amount_cents INTEGER NOT NULL, -- above, below; 0 for move
	percent      INTEGER NOT NULL, -- move; 0 otherwise
	webhook_id   INTEGER NOT NULL, -- 0: none
	paused       INTEGER NOT NULL,
	created_at   INTEGER NOT NULL,
	armed        INTEGER NOT NULL,
	last_version INTEGER NOT NULL,
	last_price   INTEGER           -- NULL: none read yet
);

CREATE INDEX alerts_account ON alerts (account_id);

CREATE TABLE alert_events (
	id         TEXT PRIMARY KEY,
	account_id INTEGER NOT NULL,
	alert_id   INTEGER NOT NULL,
	version    INTEGER NOT NULL,
	created_at INTEGER NOT NULL,
	body       BLOB NOT NULL
);

CREATE INDEX alert_events_account ON alert_events (account_id, created_at);

CREATE TABLE webhook_deliveries (
	id          INTEGER PRIMARY KEY AUTOINCREMENT,
	event_id    TEXT NOT NULL REFERENCES alert_events (id),
	endpoint_id INTEGER NOT NULL REFERENCES webhook_endpoints (id),
	state       TEXT NOT NULL,
	attempts    INTEGER NOT NULL,
	next_at     INTEGER NOT NULL, -- pending: due then; delivering: the lease's end
	created_at  INTEGER NOT NULL,
	UNIQUE (event_id, endpoint_id)
);

CREATE INDEX webhook_deliveries_due ON webhook_deliveries (next_at) WHERE state IN ('pending', 'delivering');

CREATE TABLE webhook_attempts (
	delivery_id INTEGER NOT NULL REFERENCES webhook_deliveries (id),
	n           INTEGER NOT NULL,
	at          INTEGER NOT NULL,
	status      INTEGER NOT NULL,
	duration_us INTEGER NOT NULL,
	error       TEXT NOT NULL,
	response    TEXT NOT NULL,
	PRIMARY KEY (delivery_id, n)
);
