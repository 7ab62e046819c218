-- Finished verifications are deleted by age (verifier.keep-verifications): found by time, not by a scan.
CREATE INDEX verifications_finished ON verifications (finished_at) WHERE state = 'done';
