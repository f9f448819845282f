-- When Stripe created the event that set stripe_subscription_id (issue 24),
-- so that a late retry of an older subscription's completion is told apart
-- and ignored. Microseconds since the Unix epoch, UTC; 0 when unknown (ids
-- stored before this column).

ALTER TABLE accounts ADD COLUMN stripe_subscription_at INTEGER NOT NULL DEFAULT 0;
