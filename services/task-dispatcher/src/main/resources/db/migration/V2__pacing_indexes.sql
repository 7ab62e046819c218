-- The pacer counts training groups created since its anchor, the groups still open, and (sync)
-- the groups of the current version: without these it read every group of the run once a second.
CREATE INDEX groups_train_created ON groups (created_at) WHERE mode = 'train';
CREATE INDEX groups_train_version ON groups (policy_version) WHERE mode = 'train';
CREATE INDEX groups_open ON groups (mode) WHERE state NOT IN ('finished', 'failed', 'dropped');
