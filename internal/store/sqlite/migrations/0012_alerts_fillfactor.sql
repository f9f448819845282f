-- Alert evaluation at scale (issue 25): PostgreSQL's 0012 keeps room in the
-- alerts table's pages so that each version's update of last_version is
-- written in place. SQLite always writes a row in place when it keeps its
-- size, so nothing changes here; the file keeps the two dialects' numbers
-- aligned.
SELECT 1;
