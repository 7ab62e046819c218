-- The runner keeps nothing durable beyond in-flight leases: which runner holds which rollout, its
-- heartbeat, and whether its result was published (exactly once per rollout id, with the outbox).
CREATE TABLE leases (
    rollout_id   uuid        PRIMARY KEY,
    attempt      integer     NOT NULL,
    owner        text        NOT NULL,
    heartbeat_at timestamptz NOT NULL,
    state        text        NOT NULL CHECK (state IN ('running', 'published'))
);
