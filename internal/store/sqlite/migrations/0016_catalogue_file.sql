-- The catalogue tables move to a file of their own beside this one
-- (cardcat.catalogue.db), so that an ingest's long write transaction no
-- longer holds up the writes of accounts, sessions, usage and queues here.
-- The move is not SQL: Open does it after the migrations (moveCatalogue in
-- catalogue_file.go), for this store and for any later backup restored.
-- This migration records the new layout, so that an older cardcat, which
-- would look for the catalogue in this file, refuses the store.
SELECT 1;
