-- The set each card removed from the catalogue left (store.RemovalStore):
-- the change feed (card_changes) records that a card was removed, and the
-- catalogue no longer has it, so neither says where it was. A card.changed
-- subscription to a set reads it to tell the cards that left the set.
-- Ingest writes a version's removals before the version; a card removed
-- again replaces its row. Rows older than the change feed's kept history
-- are deleted with its removals.

CREATE TABLE card_removals (
	game       text COLLATE "C" NOT NULL,
	card_id    text COLLATE "C" NOT NULL,
	set_id     text COLLATE "C" NOT NULL,
	removed_at timestamptz NOT NULL,
	PRIMARY KEY (game, card_id)
);

-- The removals to forget, without reading the others.
CREATE INDEX card_removals_by_time ON card_removals (game, removed_at);
