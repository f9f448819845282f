-- The TCGplayer history averages of the current version (issue 17), written
-- by ReplaceCatalog in the transaction that creates the version, so that a
-- replica reads them instead of grouping 30 days of price points itself.
-- Only the current version's are kept: each replace deletes them and writes
-- them again for every game with TCGplayer prices. A version written before
-- this table (or a game without a row here) is computed from the points on
-- request, as before.

-- One row per game: the version and UTC day the averages are of, and
-- store.TCGHistory.Days.
CREATE TABLE tcg_history (
	game    text COLLATE "C" PRIMARY KEY,
	version bigint NOT NULL,
	day     date NOT NULL,
	days    integer NOT NULL
);

-- store.TCGHistory.Averages of the game's row above: cents, NULL for none.
CREATE TABLE tcg_history_averages (
	game    text COLLATE "C" NOT NULL,
	card_id text COLLATE "C" NOT NULL,
	finish  text COLLATE "C" NOT NULL,
	avg7    bigint,
	avg30   bigint,
	PRIMARY KEY (game, card_id, finish)
);
