-- Accounts own API keys; keys are stored only as a hash. accounts_version is
-- bumped by every change so replicas reload their in-memory key directory only
-- when something changed. Times are INTEGER microseconds since the Unix epoch,
-- UTC; 0 means "never" (trial not started, key not revoked).

CREATE TABLE accounts (
	id               INTEGER PRIMARY KEY AUTOINCREMENT,
	email            TEXT UNIQUE,
	plan             TEXT NOT NULL,
	hour_limit       INTEGER NOT NULL DEFAULT 0,
	day_limit        INTEGER NOT NULL DEFAULT 0,
	trial_started_at INTEGER NOT NULL DEFAULT 0,
	created_at       INTEGER NOT NULL
);

CREATE TABLE api_keys (
	id         INTEGER PRIMARY KEY AUTOINCREMENT,
	account_id INTEGER NOT NULL REFERENCES accounts (id),
	hash       TEXT NOT NULL UNIQUE,
	prefix     TEXT NOT NULL,
	test       INTEGER NOT NULL,
	created_at INTEGER NOT NULL,
	revoked_at INTEGER NOT NULL DEFAULT 0
);

CREATE INDEX api_keys_account ON api_keys (account_id);

CREATE TABLE accounts_version (
	one     INTEGER PRIMARY KEY CHECK (one = 1),
	version INTEGER NOT NULL
);
INSERT INTO accounts_version (one, version) VALUES (1, 0);
