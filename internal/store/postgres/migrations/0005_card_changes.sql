-- The change feed (issue 15). card_changes has one row per card of a game
-- whose changes are recorded: the hash of its detail body at the last
-- recorded version (catalog.CardBodyHashes; NULL once the card was removed)
-- and the creation time of the version that last changed or removed it. A
-- card changed every day stays one row, so the table is as big as the
-- catalogue, not as the history; only removals age out (kept for the
-- configured change history, then deleted).

CREATE TABLE card_changes (
	game       text COLLATE "C" NOT NULL,
	card_id    text COLLATE "C" NOT NULL,
	hash       bytea,
	changed_at timestamptz NOT NULL,
	PRIMARY KEY (game, card_id)
);

-- The feed: changes after a time, in order.
CREATE INDEX card_changes_by_time ON card_changes (game, changed_at, card_id);

-- The removals to prune, without reading the present cards.
CREATE INDEX card_changes_removed ON card_changes (game, changed_at) WHERE hash IS NULL;

-- One row per game whose changes are recorded: the last version recorded,
-- the oldest since the feed answers (from_at: its first record, or the
-- newest removal forgotten) and the creation time of that version (until_at).
CREATE TABLE card_change_feeds (
	game     text COLLATE "C" PRIMARY KEY,
	version  bigint NOT NULL,
	from_at  timestamptz NOT NULL,
	until_at timestamptz NOT NULL
);
