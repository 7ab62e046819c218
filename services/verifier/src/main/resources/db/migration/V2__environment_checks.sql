-- Whether a task version's environment can run its tests at all: the gold patch verified once,
-- when a candidate's tests never reported (a verdict with cause 'environment'). When the gold
-- patch fails the same way, the fault is the environment's, and candidates are not rewarded 0.
CREATE TABLE environment_checks (
    task_id      text        NOT NULL,
    version      integer     NOT NULL,
    content_hash text        NOT NULL,
    gold_ok      boolean     NOT NULL,
    reason       text,
    checked_at   timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (task_id, version, content_hash)
);
