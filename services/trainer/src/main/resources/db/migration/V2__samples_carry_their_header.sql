-- rewards.scored v2 carries the rollout header: each sample says whether it belongs to an
-- evaluation (never trained on) and the temperature it was sampled at. The evaluation groups that
-- rollouts.requested used to announce are carried over, then that table goes.
ALTER TABLE samples ADD COLUMN mode text NOT NULL DEFAULT 'train';
ALTER TABLE samples ADD COLUMN temperature double precision;
UPDATE samples s SET mode = 'eval' FROM eval_groups e WHERE e.group_id = s.group_id;
DROP TABLE eval_groups;
