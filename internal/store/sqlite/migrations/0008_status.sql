-- The status page (internal/status, issue 27): the service's own checks of
-- its API, one row per minute whichever replica probed (the primary key on
-- the minute; a replica inserts only if the minute has none), kept 90 days;
-- the minute of the first check ever, which pruning keeps (minutes before it
-- were not measured); and the incidents the operator announces, with their
-- timeline. Times are microseconds since the Unix epoch, UTC, 0 for none;
-- a check's minute is in seconds.

CREATE TABLE status_checks (
	minute     INTEGER PRIMARY KEY,
	ok         INTEGER NOT NULL,
	http_status INTEGER NOT NULL,
	latency_us INTEGER NOT NULL,
	error      TEXT NOT NULL
);

CREATE TABLE status_first_check (
	id     INTEGER PRIMARY KEY CHECK (id = 1),
	minute INTEGER NOT NULL
);

CREATE TABLE status_incidents (
	id          INTEGER PRIMARY KEY AUTOINCREMENT,
	title       TEXT NOT NULL,
	impact      TEXT NOT NULL,
	state       TEXT NOT NULL,
	created_at  INTEGER NOT NULL,
	updated_at  INTEGER NOT NULL,
	resolved_at INTEGER NOT NULL DEFAULT 0
);

CREATE INDEX status_incidents_updated ON status_incidents (updated_at);

CREATE TABLE status_incident_updates (
	incident_id INTEGER NOT NULL REFERENCES status_incidents (id),
	seq         INTEGER NOT NULL,
	state       TEXT NOT NULL,
	message     TEXT NOT NULL,
	at          INTEGER NOT NULL,
	PRIMARY KEY (incident_id, seq)
);
