-- The status page (internal/status, issue 27): the service's own checks of
-- its API, one row per minute whichever replica probed (the primary key on
-- the minute; a replica inserts only if the minute has none), kept 90 days;
-- the minute of the first check ever, which pruning keeps (minutes before it
-- were not measured); and the incidents the operator announces, with their
-- timeline. A check's minute is in seconds since the Unix epoch.

CREATE TABLE status_checks (
	minute      bigint PRIMARY KEY,
	ok          boolean NOT NULL,
	http_status integer NOT NULL,
	latency_us  bigint NOT NULL,
	error       text NOT NULL
);

CREATE TABLE status_first_check (
	id     integer PRIMARY KEY CHECK (id = 1),
	minute bigint NOT NULL
);

CREATE TABLE status_incidents (
	id          bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
	title       text NOT NULL,
	impact      text NOT NULL,
	state       text NOT NULL,
	created_at  timestamptz NOT NULL,
	updated_at  timestamptz NOT NULL,
	resolved_at timestamptz
);

CREATE INDEX status_incidents_updated ON status_incidents (updated_at);

CREATE TABLE status_incident_updates (
	incident_id bigint NOT NULL REFERENCES status_incidents (id),
	seq         integer NOT NULL,
	state       text NOT NULL,
	message     text NOT NULL,
	at          timestamptz NOT NULL,
	PRIMARY KEY (incident_id, seq)
);
