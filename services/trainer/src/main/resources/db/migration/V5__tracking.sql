-- What the trainer keeps about where its run is recorded: the MLflow run id (trainer.tracking.mlflow),
-- so that a resumed trainer goes on with the same MLflow run.
CREATE TABLE tracking (
    key text PRIMARY KEY,
    value text NOT NULL
);
