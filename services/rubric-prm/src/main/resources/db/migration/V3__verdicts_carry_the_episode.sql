-- verifications.completed v2 carries the episode it judged (termination, patch, trajectory) and the
-- rollout header: rubric-prm scores from the verdict alone and keeps no trajectory of its own.
DROP TABLE rollouts;
