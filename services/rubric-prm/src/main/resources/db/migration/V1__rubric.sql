-- rubric-prm's state: the tasks (privileged fields and rubrics, by version), the rollouts it has
-- seen (trajectory and patch, waiting for their verdict), one score per rollout, and the outbox.
CREATE TABLE tasks (
    task_id      text        NOT NULL,
    version      integer     NOT NULL,
    content_hash text        NOT NULL,
    body         jsonb       NOT NULL,
    PRIMARY KEY (task_id, version)
);

CREATE TABLE rollouts (
    rollout_id   uuid        PRIMARY KEY,
    task_id      text        NOT NULL,
    task_version integer     NOT NULL,
    group_size   integer     NOT NULL,
    termination  text        NOT NULL,
    patch        text        NOT NULL,
    trajectory   jsonb       NOT NULL
);

CREATE TABLE scores (
    rollout_id   uuid        PRIMARY KEY,
    masked       boolean     NOT NULL,
    reward       double precision,
    s_prm        double precision,
    r_exec       integer,
    breakdown    jsonb       NOT NULL,
    scored_at    timestamptz NOT NULL DEFAULT now()
);
