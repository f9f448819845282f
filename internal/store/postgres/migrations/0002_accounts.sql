-- Accounts own API keys; keys are stored only as a hash. accounts_version is
-- bumped by every change so replicas reload their in-memory key directory only
-- when something changed. NULL times mean "never".

CREATE TABLE accounts (
	id               bigserial PRIMARY KEY,
	email            text UNIQUE,
	plan             text NOT NULL,
	hour_limit       bigint NOT NULL DEFAULT 0,
	day_limit        bigint NOT NULL DEFAULT 0,
	trial_started_at timestamptz,
	created_at       timestamptz NOT NULL
);

CREATE TABLE api_keys (
	id         bigserial PRIMARY KEY,
	account_id bigint NOT NULL REFERENCES accounts (id),
	hash       text NOT NULL UNIQUE,
	prefix     text NOT NULL,
	test       boolean NOT NULL,
	created_at timestamptz NOT NULL,
	revoked_at timestamptz
);

CREATE INDEX api_keys_account ON api_keys (account_id);

CREATE TABLE accounts_version (
	one     integer PRIMARY KEY CHECK (one = 1),
	version bigint NOT NULL
);
INSERT INTO accounts_version (one, version) VALUES (1, 0);
