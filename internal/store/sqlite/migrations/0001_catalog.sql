-- The catalogue: one version row per ingest, the current sets, cards and
-- prices of every game, and the daily price points kept as history.
--
-- Conventions: "" in the model is NULL here, and so is a marketplace id of 0;
-- money is integer cents (NULL = no price); times are INTEGER microseconds
-- since the Unix epoch, UTC. Prices are only written together with their card,
-- in the same transaction, so they carry no foreign key: checking one per row
-- would only slow down a million-card replace.

CREATE TABLE catalog_versions (
	version    INTEGER PRIMARY KEY,
	created_at INTEGER NOT NULL,
	report     TEXT NOT NULL
);

CREATE TABLE sets (
	game            TEXT NOT NULL,
	set_id          TEXT NOT NULL,
	code            TEXT,
	name            TEXT,
	language        TEXT,
	release_date    TEXT,
	tcg_category_id INTEGER,
	tcg_group_id    INTEGER,
	cm_expansion_id INTEGER,
	PRIMARY KEY (game, set_id)
) WITHOUT ROWID;

-- ordinal is the card's position in the list ingest wrote, kept so that a load
-- returns the cards in that order.
CREATE TABLE cards (
	game            TEXT NOT NULL,
	id              TEXT NOT NULL,
	ordinal         INTEGER NOT NULL,
	cm_id           TEXT,
	set_id          TEXT,
	tcg_product_id  INTEGER,
	cm_product_id   INTEGER,
	name            TEXT,
	clean_name      TEXT,
	card_number     TEXT,
	rarity          TEXT,
	card_type       TEXT,
	product_type    TEXT,
	card_text       TEXT,
	extra           TEXT NOT NULL DEFAULT '[]',
	variants        TEXT NOT NULL DEFAULT '[]',
	image_count     INTEGER NOT NULL DEFAULT 0,
	tcg_url         TEXT,
	cm_product_name TEXT,
	cm_product_url  TEXT,
	PRIMARY KEY (game, id),
	UNIQUE (game, ordinal)
);

-- ordinal numbers the game's prices in write order (card by card, finish by
-- finish), so that one ordered scan meets the cards in their own order.
CREATE TABLE tcg_prices (
	game       TEXT NOT NULL,
	ordinal    INTEGER NOT NULL,
	card_id    TEXT NOT NULL,
	sub_type   TEXT NOT NULL,
	low        INTEGER,
	mid        INTEGER,
	high       INTEGER,
	market     INTEGER,
	direct_low INTEGER,
	updated_at INTEGER,
	PRIMARY KEY (game, ordinal)
) WITHOUT ROWID;

CREATE TABLE cm_prices (
	game       TEXT NOT NULL,
	ordinal    INTEGER NOT NULL,
	card_id    TEXT NOT NULL,
	variant    TEXT NOT NULL,
	avg        INTEGER,
	low        INTEGER,
	trend      INTEGER,
	avg1       INTEGER,
	avg7       INTEGER,
	avg30      INTEGER,
	updated_at INTEGER,
	PRIMARY KEY (game, ordinal)
) WITHOUT ROWID;

-- History: never deleted by a catalogue replace. market is 't' (TCGplayer:
-- v1..v5 = low, mid, high, market, direct_low) or 'c' (Cardmarket: v1..v6 =
-- avg, low, trend, avg1, avg7, avg30); day is 'YYYY-MM-DD', UTC.
CREATE TABLE price_points (
	game    TEXT NOT NULL,
	card_id TEXT NOT NULL,
	market  TEXT NOT NULL CHECK (market IN ('t', 'c')),
	finish  TEXT NOT NULL,
	day     TEXT NOT NULL,
	v1      INTEGER,
	v2      INTEGER,
	v3      INTEGER,
	v4      INTEGER,
	v5      INTEGER,
	v6      INTEGER,
	PRIMARY KEY (game, card_id, market, finish, day)
) WITHOUT ROWID;
