-- Settled training groups (and their rollouts) and solve history are deleted by age
-- (dispatcher.keep-history, HistoryRetention): found by time, not by a scan.
CREATE INDEX groups_settled ON groups (finished_at) WHERE state IN ('finished', 'failed', 'dropped') AND eval_run_id IS NULL;
CREATE INDEX solve_history_at ON solve_history (at);
