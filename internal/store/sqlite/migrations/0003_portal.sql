-- The developer portal (issue 14): passwords, email verification, Stripe ids,
-- deleted accounts, key names and last use, server-side sessions, one-time
-- email tokens and hourly usage. Times are INTEGER microseconds since the Unix
-- epoch, UTC; 0 means "never".
--
-- A deleted account keeps its row (its usage and keys refer to it) with
-- deleted_at set and its email NULL, so that the email's UNIQUE constraint
-- holds among live accounts only (NULLs do not collide).

ALTER TABLE accounts ADD COLUMN password_hash TEXT NOT NULL DEFAULT '';
ALTER TABLE accounts ADD COLUMN verified_at INTEGER NOT NULL DEFAULT 0;
ALTER TABLE accounts ADD COLUMN stripe_customer_id TEXT; -- NULL when none
ALTER TABLE accounts ADD COLUMN stripe_subscription_id TEXT NOT NULL DEFAULT '';
ALTER TABLE accounts ADD COLUMN deleted_at INTEGER NOT NULL DEFAULT 0;

CREATE UNIQUE INDEX accounts_stripe_customer ON accounts (stripe_customer_id);

ALTER TABLE api_keys ADD COLUMN name TEXT NOT NULL DEFAULT '';
ALTER TABLE api_keys ADD COLUMN last_used_at INTEGER NOT NULL DEFAULT 0;

-- Sessions and tokens are stored by the hash of their secret only.
CREATE TABLE sessions (
	id_hash      TEXT PRIMARY KEY,
	account_id   INTEGER NOT NULL REFERENCES accounts (id),
	created_at   INTEGER NOT NULL,
	last_seen_at INTEGER NOT NULL
);

CREATE INDEX sessions_account ON sessions (account_id);

CREATE TABLE tokens (
	hash       TEXT PRIMARY KEY,
	account_id INTEGER NOT NULL REFERENCES accounts (id),
	purpose    TEXT NOT NULL,
	created_at INTEGER NOT NULL,
	expires_at INTEGER NOT NULL
);

CREATE INDEX tokens_account ON tokens (account_id);

-- hour is the start of a UTC hour.
CREATE TABLE usage_hours (
	account_id INTEGER NOT NULL REFERENCES accounts (id),
	hour       INTEGER NOT NULL,
	requests   INTEGER NOT NULL,
	refused    INTEGER NOT NULL,
	PRIMARY KEY (account_id, hour)
) WITHOUT ROWID;
