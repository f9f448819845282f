-- Price alerts and signed webhooks (internal/alerts, internal/webhooks,
-- issue 25): an account's webhook endpoints (the signing secret kept to
-- sign); its alerts with their evaluation's state (armed, the last
-- catalogue version evaluated and the price read then); the events the
-- alerts fired (the JSON sent, as sent); and the delivery queue, one row per
-- event and endpoint, claimed with a lease (FOR UPDATE SKIP LOCKED: the
-- replicas share it), with every attempt's log. Money is in cents.

CREATE TABLE webhook_endpoints (
	id         bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
	account_id bigint NOT NULL REFERENCES accounts (id),
	url        text NOT NULL,
	secret     text NOT NULL,
	created_at timestamptz NOT NULL
);

CREATE INDEX webhook_endpoints_account ON webhook_endpoints (account_id);

CREATE TABLE alerts (
	id           bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
	account_id   bigint NOT NULL REFERENCES accounts (id),
	game         text NOT NULL,
	card_id      text NOT NULL,
	source       text NOT NULL CHECK (source IN ('tcg', 'cm')),
	finish       text NOT NULL,
	rule         text NOT NULL CHECK (rule IN ('above', 'below', 'move')),
	amount_cents bigint NOT NULL, -- above, below; 0 for move
	percent      integer NOT NULL, -- move; 0 otherwise
	webhook_id   bigint NOT NULL, -- 0: none
	paused       boolean NOT NULL,
	created_at   timestamptz NOT NULL,
	armed        boolean NOT NULL,
	last_version bigint NOT NULL,
	last_price   bigint           -- NULL: none read yet
);

CREATE INDEX alerts_account ON alerts (account_id);

CREATE TABLE alert_events (
	id         text PRIMARY KEY,
	account_id bigint NOT NULL,
	alert_id   bigint NOT NULL,
	version    bigint NOT NULL,
	created_at timestamptz NOT NULL,
	body       bytea NOT NULL
);

CREATE INDEX alert_events_account ON alert_events (account_id, created_at);

CREATE TABLE webhook_deliveries (
	id          bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
	event_id    text NOT NULL REFERENCES alert_events (id),
	endpoint_id bigint NOT NULL REFERENCES webhook_endpoints (id),
	state       text NOT NULL,
	attempts    integer NOT NULL,
	next_at     timestamptz NOT NULL, -- pending: due then; delivering: the lease's end
	created_at  timestamptz NOT NULL,
	UNIQUE (event_id, endpoint_id)
);

CREATE INDEX webhook_deliveries_due ON webhook_deliveries (next_at) WHERE state IN ('pending', 'delivering');

CREATE TABLE webhook_attempts (
	delivery_id bigint NOT NULL REFERENCES webhook_deliveries (id),
	n           integer NOT NULL,
	at          timestamptz NOT NULL,
	status      integer NOT NULL,
	duration_us bigint NOT NULL,
	error       text NOT NULL,
	response    text NOT NULL,
	PRIMARY KEY (delivery_id, n)
);
