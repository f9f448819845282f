-- The developer portal (issue 14): passwords, email verification, Stripe ids,
-- deleted accounts, key names and last use, server-side sessions, one-time
-- email tokens and hourly usage. NULL times mean "never".
--
-- A deleted account keeps its row (its usage and keys refer to it) with
-- deleted_at set and its email NULL, so that the email's UNIQUE constraint
-- holds among live accounts only (NULLs do not collide).

ALTER TABLE accounts
	ADD COLUMN password_hash text NOT NULL DEFAULT '',
	ADD COLUMN verified_at timestamptz,
	ADD COLUMN stripe_customer_id text UNIQUE, -- NULL when none
	ADD COLUMN stripe_subscription_id text NOT NULL DEFAULT '',
	ADD COLUMN deleted_at timestamptz;

ALTER TABLE api_keys
	ADD COLUMN name text NOT NULL DEFAULT '',
	ADD COLUMN last_used_at timestamptz;

-- Sessions and tokens are stored by the hash of their secret only.
CREATE TABLE sessions (
	id_hash      text PRIMARY KEY,
	account_id   bigint NOT NULL REFERENCES accounts (id),
	created_at   timestamptz NOT NULL,
	last_seen_at timestamptz NOT NULL
);

CREATE INDEX sessions_account ON sessions (account_id);

CREATE TABLE tokens (
	hash       text PRIMARY KEY,
	account_id bigint NOT NULL REFERENCES accounts (id),
	purpose    text NOT NULL,
	created_at timestamptz NOT NULL,
	expires_at timestamptz NOT NULL
);

CREATE INDEX tokens_account ON tokens (account_id);

-- hour is the start of a UTC hour.
CREATE TABLE usage_hours (
	account_id bigint NOT NULL REFERENCES accounts (id),
	hour       timestamptz NOT NULL,
	requests   bigint NOT NULL,
	refused    bigint NOT NULL,
	PRIMARY KEY (account_id, hour)
);
