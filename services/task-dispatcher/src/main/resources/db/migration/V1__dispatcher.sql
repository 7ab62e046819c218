-- task-dispatcher's state: tasks by version, their scheduling and curriculum state, sources and
-- their fair share, groups and the per-rollout state machine, evaluation runs, the trainer's
-- policy version and the staleness histogram, and the outbox.
CREATE TABLE tasks (
    task_id      text        NOT NULL,
    version      integer     NOT NULL,
    content_hash text        NOT NULL,
    body         jsonb       NOT NULL,
    split        text        NOT NULL,
    source       text        NOT NULL,
    created_at   timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (task_id, version)
);

-- One row per task: the version scheduled, its share and its curriculum state.
CREATE TABLE task_state (
    task_id         text             PRIMARY KEY,
    version         integer          NOT NULL,
    split           text             NOT NULL,
    source          text             NOT NULL,
    priority        integer          NOT NULL DEFAULT 1 CHECK (priority >= 1),
    groups          bigint           NOT NULL DEFAULT 0,
    streak          integer          NOT NULL DEFAULT 0,
    skip_until      bigint           NOT NULL DEFAULT 0,
    last_solve_rate double precision
);

CREATE TABLE solve_history (
    group_id       uuid             PRIMARY KEY,
    task_id        text             NOT NULL,
    policy_version bigint           NOT NULL,
    solved         integer          NOT NULL,
    valid          integer          NOT NULL,
    at             timestamptz      NOT NULL DEFAULT now()
);
CREATE INDEX solve_history_task ON solve_history (task_id, at DESC);

CREATE TABLE sources (
    source  text   PRIMARY KEY,
    groups  bigint NOT NULL DEFAULT 0
);

CREATE TABLE groups (
    group_id       uuid        PRIMARY KEY,
    task_id        text        NOT NULL,
    task_version   integer     NOT NULL,
    policy_version bigint      NOT NULL,
    size           integer     NOT NULL,
    mode           text        NOT NULL,
    eval_run_id    uuid,
    state          text        NOT NULL,
    reason         text,
    round          bigint,
    created_at     timestamptz NOT NULL DEFAULT now(),
    finished_at    timestamptz
);
CREATE INDEX groups_pending ON groups (created_at) WHERE state = 'pending';
CREATE INDEX groups_eval ON groups (eval_run_id) WHERE eval_run_id IS NOT NULL;

-- One row per attempt of a member; a member's live attempt is its highest.
CREATE TABLE rollouts (
    rollout_id   uuid             PRIMARY KEY,
    group_id     uuid             NOT NULL REFERENCES groups (group_id),
    member_index integer          NOT NULL,
    attempt      integer          NOT NULL,
    state        text             NOT NULL,
    reason       text,
    deadline     timestamptz,
    masked       boolean,
    r_exec       integer,
    reward       double precision,
    s_prm        double precision,
    tokens       bigint,
    updated_at   timestamptz      NOT NULL DEFAULT now(),
    UNIQUE (group_id, member_index, attempt)
);
CREATE INDEX rollouts_live ON rollouts (deadline) WHERE state IN ('requested', 'completed', 'verified');

CREATE TABLE evals (
    eval_run_id    uuid             PRIMARY KEY,
    policy_version bigint           NOT NULL,
    k              integer          NOT NULL,
    alpha          double precision NOT NULL,
    created_at     timestamptz      NOT NULL DEFAULT now()
);

CREATE TABLE scheduler (
    id             integer PRIMARY KEY CHECK (id = 1),
    policy_version bigint  NOT NULL,
    round          bigint  NOT NULL
);
INSERT INTO scheduler (id, policy_version, round) VALUES (1, 0, 0);

-- Lag (trainer version − sampling version) of finished training groups, and of dropped ones.
CREATE TABLE staleness (
    lag     bigint PRIMARY KEY,
    used    bigint NOT NULL DEFAULT 0,
    dropped bigint NOT NULL DEFAULT 0
);
