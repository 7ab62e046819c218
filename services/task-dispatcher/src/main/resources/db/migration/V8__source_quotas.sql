-- Per-source quotas on POST /tasks (SourceQuota): what a source added over the last hour, and its
-- training tasks never scheduled yet, counted without a scan of every task.
CREATE INDEX tasks_source_created ON tasks (source, created_at);
CREATE INDEX task_state_source_pending ON task_state (source) WHERE groups = 0 AND split = 'train';
