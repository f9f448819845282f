-- The portal's alert and webhook pages (issue 25): a rotated signing secret
-- keeps signing beside the new one until previous_until (the overlap; ''
-- and NULL when none); a test event ("send a test event") is marked as such;
-- a delivery resent from the delivery log starts its schedule again at
-- resent_at (NULL: never resent), its backoff counting only the attempts
-- made after the resent_after first ones; the log reads an endpoint's
-- deliveries newest first.

ALTER TABLE webhook_endpoints
	ADD COLUMN previous_secret text NOT NULL DEFAULT '',
	ADD COLUMN previous_until  timestamptz;

ALTER TABLE alert_events ADD COLUMN test boolean NOT NULL DEFAULT false;

ALTER TABLE webhook_deliveries
	ADD COLUMN resent_at    timestamptz,
	ADD COLUMN resent_after integer NOT NULL DEFAULT 0;

CREATE INDEX webhook_deliveries_endpoint ON webhook_deliveries (endpoint_id, id);
