-- Curriculum cohorts: tasks that share the value of a task field (dispatcher.curriculum-cohort,
-- e.g. tiny-swe's "family", or "repo") share a bench as well as their own. A task is seen rarely in
-- a large suite — 1,024 tasks at a few groups a minute is hours per pass — so a task's own streak
-- cannot act within a pass; its cohort's can: a kind of bug the policy never solves sits out after
-- a few all-failed groups of any of its tasks.
ALTER TABLE task_state ADD COLUMN cohort text;
CREATE INDEX task_state_cohort ON task_state (cohort) WHERE cohort IS NOT NULL;
CREATE TABLE cohort_state (
    cohort text PRIMARY KEY,
    streak integer NOT NULL DEFAULT 0,
    skip_until bigint NOT NULL DEFAULT 0,
    groups bigint NOT NULL DEFAULT 0,
    last_solve_rate double precision
);
