-- The pacer counts a training group as useful only while the trainer can learn from it. With
-- compact filtering (the trainer's default), members that ran out of turns, context or time leave
-- their group in the trainer, so the pacer must leave them out too: a group whose only solved
-- members ran out of turns teaches nothing, and counting it stalled the loop until stall-after.
ALTER TABLE rollouts ADD COLUMN truncated boolean NOT NULL DEFAULT false;
-- Members left after compact filtering, and how many of them solved (NULL before this version: as valid, solved).
ALTER TABLE solve_history ADD COLUMN kept integer, ADD COLUMN kept_solved integer;
