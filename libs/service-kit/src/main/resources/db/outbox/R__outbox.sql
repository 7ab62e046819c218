-- The outbox, one definition for every service (service-kit). A repeatable migration: Flyway applies
-- it after a service's own versioned ones, in that service's schema, and again whenever this file
-- changes — so every statement here must be idempotent.
--
-- A row is written in the transaction of the state change it announces and relayed to Kafka after
-- (OutboxRelay); sent rows are deleted once older than alice.outbox.keep-sent; a row Kafka can never
-- take (too large) is set aside with its reason instead of holding up the rows behind it, keeps its
-- payload and is never pruned.
CREATE TABLE IF NOT EXISTS outbox (
    id          bigserial   PRIMARY KEY,
    topic       text        NOT NULL,
    event_key   text        NOT NULL,
    payload     bytea       NOT NULL,
    created_at  timestamptz NOT NULL DEFAULT now(),
    sent_at     timestamptz,
    dead_reason text
);
-- the relay's scan of what is left to send
CREATE INDEX IF NOT EXISTS outbox_unsent ON outbox (id) WHERE sent_at IS NULL;
-- retention finds sent rows by time, not by a scan
CREATE INDEX IF NOT EXISTS outbox_sent ON outbox (sent_at) WHERE sent_at IS NOT NULL;
-- an outbox made by a release before 2026-12 (each service's V1 created it then) lacks the column
ALTER TABLE outbox ADD COLUMN IF NOT EXISTS dead_reason text;
