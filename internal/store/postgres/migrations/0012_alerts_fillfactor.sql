-- Alert evaluation at scale (issue 25: a million alerts evaluated within a
-- minute): each catalogue version writes every evaluated alert's
-- last_version. With full pages each such update moves the row to another
-- page and adds an entry to each of the table's indexes; with room left in
-- the page it is a heap-only update (HOT), written in place of the dead
-- version of the row, with no index entry. Half of each page is kept free
-- for that. Only pages written from now on keep the room: a table that holds
-- many alerts already gets it at its next rewrite (VACUUM FULL, or
-- pg_repack), and until then HOT updates happen where pages have room.

ALTER TABLE alerts SET (fillfactor = 50);
