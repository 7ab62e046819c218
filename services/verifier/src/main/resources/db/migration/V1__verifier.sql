-- The verifier's state: the tasks it has seen (from tasks.submitted), one verdict per rollout,
-- and the outbox that announces verdicts (written in the verdict's transaction, relayed to Kafka).
CREATE TABLE tasks (
    task_id      text        NOT NULL,
    version      integer     NOT NULL,
    content_hash text        NOT NULL,
    body         jsonb       NOT NULL,
    received_at  timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (task_id, version)
);

CREATE TABLE verifications (
    rollout_id     uuid        PRIMARY KEY,
    task_id        text        NOT NULL,
    task_version   integer     NOT NULL,
    group_id       uuid        NOT NULL,
    policy_version bigint      NOT NULL,
    state          text        NOT NULL CHECK (state IN ('running', 'done')),
    claimed_by     text        NOT NULL,
    claimed_at     timestamptz NOT NULL,
    status         text,
    resolved       boolean,
    verdict        jsonb,
    finished_at    timestamptz
);
