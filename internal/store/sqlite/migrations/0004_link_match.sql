-- Link provenance (issue 15): how a card's TCGplayer and Cardmarket products
-- were linked, 'mtgjson', 'operator' or 'name'; NULL for a card on one
-- marketplace only, and for the cards of a version written before this
-- column (the next ingest fills it).

ALTER TABLE cards ADD COLUMN cm_match TEXT;
