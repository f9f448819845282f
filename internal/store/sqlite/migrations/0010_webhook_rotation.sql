-- The portal's alert and webhook pages (issue 25): a rotated signing secret
-- keeps signing beside the new one until previous_until (the overlap; '' and
-- 0 when none); a test event ("send a test event") is marked as such; a
-- delivery resent from the delivery log starts its schedule again at
-- resent_at (0: never resent), its backoff counting only the attempts made
-- after the resent_after first ones; the log reads an endpoint's deliveries
-- newest first. Times are microseconds since the Unix epoch, UTC.

ALTER TABLE webhook_endpoints ADD COLUMN previous_secret TEXT NOT NULL DEFAULT '';
ALTER TABLE webhook_endpoints ADD COLUMN previous_until INTEGER NOT NULL DEFAULT 0;

ALTER TABLE alert_events ADD COLUMN test INTEGER NOT NULL DEFAULT 0;

ALTER TABLE webhook_deliveries ADD COLUMN resent_at INTEGER NOT NULL DEFAULT 0;
ALTER TABLE webhook_deliveries ADD COLUMN resent_after INTEGER NOT NULL DEFAULT 0;

CREATE INDEX webhook_deliveries_endpoint ON webhook_deliveries (endpoint_id, id);
