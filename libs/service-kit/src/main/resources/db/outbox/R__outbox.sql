-- Shared by every service's outbox table (service-kit; a repeatable migration, re-applied when
-- this file changes, after each service's own versioned ones, in that service's schema).
-- Sent rows are deleted once older than alice.outbox.keep-sent: find them by time, not by a scan.
CREATE INDEX IF NOT EXISTS outbox_sent ON outbox (sent_at) WHERE sent_at IS NOT NULL;
-- A row Kafka can never take (too large) is set aside with its reason instead of holding up the
-- rows behind it; it keeps its payload and is never pruned (OutboxRelay).
ALTER TABLE outbox ADD COLUMN IF NOT EXISTS dead_reason text;
