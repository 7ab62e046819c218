-- Model-written rubrics (the Rubric Agent), one per task version, kept so that every rollout of a
-- task version is scored by the same rubric.
CREATE TABLE rubrics (
    task_id      text        NOT NULL,
    task_version integer     NOT NULL,
    source       text        NOT NULL,
    body         jsonb       NOT NULL,
    created_at   timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (task_id, task_version)
);
