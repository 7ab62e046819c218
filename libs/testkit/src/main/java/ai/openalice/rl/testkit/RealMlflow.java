package ai.openalice.rl.testkit;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.function.IntFunction;

/**
 * A real MLflow tracking server (PyPI's mlflow, {@code dev/stack python}'s MLflow environment, found
 * through {@code -Dalice.mlflow.python}) with a SQLite store and its artifacts served through it, in a
 * folder of its own under {@code target/}; started once per test JVM and stopped when it exits. Its
 * log is {@code target/mlflow.log}.
 */
public final class RealMlflow {
    private static URI url;

    private RealMlflow() {}

    /** The server's base URL (no trailing slash), starting it on first use. */
    public static synchronized URI url() {
        if (url == null) {
            url = start();
        }
        return url;
    }

    /** The MLflow environment's python; an IllegalStateException saying how to make it when it is not there. */
    public static String python() {
        String python = System.getProperty("alice.mlflow.python", "");
        if (python.isBlank() || !Files.isExecutable(Path.of(python))) {
            throw new IllegalStateException("MLflow's environment is not set (-Dalice.mlflow.python=" + python + "); make it with: dev/stack python"
                    + " (or run the tests with dev/test)");
        }
        return python;
    }

    private static URI start() {
        String python = python();
        Path dir;
        try {
            dir = Files.createTempDirectory(Path.of("target").toAbsolutePath(), "mlflow-");
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        IntFunction<List<String>> command = port -> List.of(python, "-m", "mlflow", "server", "--host", "127.0.0.1", "--port", Integer.toString(port),
                "--backend-store-uri", "sqlite:///" + dir.resolve("mlflow.db"), "--artifacts-destination", dir.resolve("artifacts").toString(),
                "--workers", "1");
        // its job runner (huey workers for GenAI evaluation jobs: eight processes, about 1.8 GB) is not what is tested
        return ServerProcess.start("MLflow", command, Map.of("MLFLOW_DISABLE_TELEMETRY", "true", "DO_NOT_TRACK", "true",
                        "MLFLOW_SERVER_ENABLE_JOB_EXECUTION", "false"),
                Path.of("target", "mlflow.log").toAbsolutePath(), "/health", Duration.ofMinutes(2));
    }
}
