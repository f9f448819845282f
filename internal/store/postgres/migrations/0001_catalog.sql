-- The catalogue: one version row per ingest, the current sets, cards and
-- prices of every game, and the daily price points kept as history.
--
-- Conventions: "" in the model is NULL here, and so is a marketplace id of 0;
-- money is bigint cents (NULL = no price). Keys that the store orders by are
-- COLLATE "C" (byte order), as SQLite's and Go's, whatever the database's
-- collation. Prices are only written together with their card, in the same
-- transaction, so they carry no foreign key: checking one per row would only
-- slow down a million-card replace.

CREATE TABLE catalog_versions (
	version    bigint PRIMARY KEY,
	created_at timestamptz NOT NULL,
	report     text NOT NULL
);

CREATE TABLE sets (
	game            text COLLATE "C" NOT NULL,
	set_id          text COLLATE "C" NOT NULL,
	code            text,
	name            text,
	language        text,
	release_date    text,
	tcg_category_id integer,
	tcg_group_id    integer,
	cm_expansion_id integer,
	PRIMARY KEY (game, set_id)
);

-- ordinal is the card's position in the list ingest wrote, kept so that a load
-- returns the cards in that order.
CREATE TABLE cards (
	game            text COLLATE "C" NOT NULL,
	id              text COLLATE "C" NOT NULL,
	ordinal         integer NOT NULL,
	cm_id           text,
	set_id          text,
	tcg_product_id  integer,
	cm_product_id   integer,
	name            text,
	clean_name      text,
	card_number     text,
	rarity          text,
	card_type       text,
	product_type    text,
	card_text       text,
	extra           text NOT NULL DEFAULT '[]',
	variants        text NOT NULL DEFAULT '[]',
	image_count     integer NOT NULL DEFAULT 0,
	tcg_url         text,
	cm_product_name text,
	cm_product_url  text,
	PRIMARY KEY (game, id),
	UNIQUE (game, ordinal)
);

-- ordinal numbers the game's prices in write order (card by card, finish by
-- finish), so that one ordered scan meets the cards in their own order.
CREATE TABLE tcg_prices (
	game       text COLLATE "C" NOT NULL,
	ordinal    integer NOT NULL,
	card_id    text COLLATE "C" NOT NULL,
	sub_type   text COLLATE "C" NOT NULL,
	low        bigint,
	mid        bigint,
	high       bigint,
	market     bigint,
	direct_low bigint,
	updated_at timestamptz,
	PRIMARY KEY (game, ordinal)
);

CREATE TABLE cm_prices (
	game       text COLLATE "C" NOT NULL,
	ordinal    integer NOT NULL,
	card_id    text COLLATE "C" NOT NULL,
	variant    text COLLATE "C" NOT NULL,
	avg        bigint,
	low        bigint,
	trend      bigint,
	avg1       bigint,
	avg7       bigint,
	avg30      bigint,
	updated_at timestamptz,
	PRIMARY KEY (game, ordinal)
);

-- History: never deleted by a catalogue replace. market is 't' (TCGplayer:
-- v1..v5 = low, mid, high, market, direct_low) or 'c' (Cardmarket: v1..v6 =
-- avg, low, trend, avg1, avg7, avg30); day is the UTC day.
CREATE TABLE price_points (
	game    text COLLATE "C" NOT NULL,
	card_id text COLLATE "C" NOT NULL,
	market  text COLLATE "C" NOT NULL CHECK (market IN ('t', 'c')),
	finish  text COLLATE "C" NOT NULL,
	day     date NOT NULL,
	v1      bigint,
	v2      bigint,
	v3      bigint,
	v4      bigint,
	v5      bigint,
	v6      bigint,
	PRIMARY KEY (game, card_id, market, finish, day)
);
