-- Retention of the alerts' history (alerts.Retention, --alert-history-days):
-- a daily prune deletes the events finished before a cutoff, with their
-- deliveries, attempts and emails. It walks the events by creation time
-- from the oldest, in batches, each batch resuming after the last event it
-- read (id breaks ties), so that events kept (still pending, resent) are
-- passed over and not read again. Without this index the walk would read
-- the whole table for each batch: alert_events_account leads with the
-- account. The deliveries, attempts and emails of a batch's events are
-- found by the indexes they have (webhook_deliveries (event_id, ...),
-- webhook_attempts' primary key, alert_emails' event_id). The evaluation
-- appends to this index (created_at grows), at its right-hand end. Built on
-- a history already big, it holds the evaluation's writes while it builds
-- (seconds at most at a million events).

CREATE INDEX alert_events_created ON alert_events (created_at, id);
