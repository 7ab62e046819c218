-- trainer's state: scored rollouts waiting to be trained on (the ledger: step = the committed step
-- that used it), their groups, evaluation groups (never trained on), the checkpoint registry, and
-- the outbox (checkpoints.published and training.metrics).
CREATE TABLE groups (
    group_id     uuid        PRIMARY KEY,
    state        text        NOT NULL DEFAULT 'open',
    reason       text,
    first_seen   timestamptz NOT NULL DEFAULT now(),
    settled_step bigint
);
CREATE INDEX groups_open ON groups (first_seen) WHERE state = 'open';

CREATE TABLE samples (
    rollout_id     uuid             PRIMARY KEY,
    group_id       uuid             NOT NULL REFERENCES groups (group_id),
    task_id        text             NOT NULL,
    policy_version bigint           NOT NULL,
    group_size     integer          NOT NULL,
    masked         boolean          NOT NULL,
    infra          boolean          NOT NULL,
    termination    text             NOT NULL,
    reward         double precision,
    r_exec         integer,
    s_prm          double precision,
    trajectory     jsonb            NOT NULL,
    received_at    timestamptz      NOT NULL DEFAULT now(),
    step           bigint
);
CREATE INDEX samples_group ON samples (group_id);

CREATE TABLE eval_groups (
    group_id uuid PRIMARY KEY
);

CREATE TABLE checkpoints (
    policy_version bigint      PRIMARY KEY,
    step           bigint      NOT NULL,
    dir            text        NOT NULL,
    onnx_sha256    text        NOT NULL,
    metrics        jsonb       NOT NULL,
    created_at     timestamptz NOT NULL DEFAULT now()
);
