-- Retention: a sample's trajectory is dropped once no step will read it (trained some steps ago, or
-- its group dropped for good); the ledger row (rollout, group, step, reward) stays.
ALTER TABLE samples ALTER COLUMN trajectory DROP NOT NULL;
CREATE INDEX samples_trained_with_trajectory ON samples (step) WHERE trajectory IS NOT NULL AND step IS NOT NULL;
