-- tasks.accepted: the dispatcher announces every task version it stores, in the same transaction.
-- Versions stored before this release are announced once at start-up (AcceptedTopic), then marked.
ALTER TABLE tasks ADD COLUMN announced boolean NOT NULL DEFAULT false;
CREATE INDEX tasks_unannounced ON tasks (task_id, version) WHERE NOT announced;
