package ai.openalice.rl.cli.train;

import ai.openalice.rl.tracking.MlflowClient;
import ai.openalice.rl.tracking.MlflowRun;
import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.stream.Stream;

/**
 * {@code --mlflow}: what {@code alice-rl train} itself knows, added to the trainer's MLflow run (the
 * trainer makes the run and records each step; see {@code trainer.tracking}): the run's settings as
 * parameters, throughput, held-out pass@1 and the share of episodes with a reward-hack attempt at the
 * trainer's step, and at the end the report (its page and charts) and the run's status. The run is
 * attached once the trainer's {@code /status} names it; until then the parameters wait.
 */
final class TrackedRun {
    private final URI mlflow;
    private final Map<String, String> params = new LinkedHashMap<>();
    private MlflowRun run;

    private TrackedRun(URI mlflow) {
        this.mlflow = mlflow;
    }

    /** Nothing recorded (no {@code --mlflow}). */
    static TrackedRun none() {
        return new TrackedRun(null);
    }

    static TrackedRun of(URI mlflow, Map<String, String> params) {
        var t = new TrackedRun(mlflow);
        t.params.putAll(params);
        return t;
    }

    /** The run's figures at the trainer's {@code step}; attaches to the trainer's run once its status names one. */
    void observe(JsonNode trainerStatus, long step, Map<String, Double> values) {
        if (mlflow == null) {
            return;
        }
        if (run == null) {
            String runId = trainerStatus.at("/tracking/runId").asText("");
            if (runId.isEmpty()) {
                return;
            }
            run = MlflowRun.attach(new MlflowClient(mlflow), runId);
            run.params(params, Map.of("alice-rl.state", params.getOrDefault("state", "")));
        }
        run.log(step, values);
    }

    /** Where a person finds the run (null before it is attached). */
    String link() {
        if (run == null || run.run().isEmpty()) {
            return null;
        }
        var r = run.run().get();
        return mlflow.toString().replaceAll("/+$", "") + "/#/experiments/" + r.experimentId() + "/runs/" + r.runId();
    }

    /** The report's page and charts as the run's artifacts under {@code report/}, and the run's end: FINISHED, FAILED or KILLED (Ctrl-C). */
    void finish(Path reportDir, String status) throws IOException, InterruptedException {
        if (run == null) {
            return;
        }
        if (reportDir != null && Files.isDirectory(reportDir)) {
            try (Stream<Path> files = Files.list(reportDir)) {
                for (Path f : files.filter(Files::isRegularFile).sorted().toList()) {
                    run.artifact("report/" + f.getFileName(), Files.readAllBytes(f));
                }
            }
        }
        run.end(status);
        run.flush(Duration.ofSeconds(60));
        run.close();
    }
}
