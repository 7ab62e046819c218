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
 * A real SkyRL Tinker server (PyPI's {@code skyrl} 0.4.0, {@code dev/tinker}, made by {@code dev/stack
 * python}) training and sampling the tiny Qwen3 on its JAX backend on CPU, started once per test
 * JVM and stopped with its engine when the JVM exits. It is started as SkyRL requires — {@code uv
 * run --project dev/tinker -m skyrl.tinker.api} — because it starts its engine with the same uv
 * flags. Its database and checkpoints live in {@code target/tinker/}, its log is
 * {@code target/tinker.log}.
 */
public final class RealTinker {
    private static URI url;

    private RealTinker() {}

    /** The server's base URL (no trailing slash), starting it on first use; waits up to five minutes for it to answer. */
    public static synchronized URI qwen3Tiny() {
        if (url == null) {
            url = start(PythonReference.tinkerHome(), PythonReference.qwen3Tiny());
        }
        return url;
    }

    /** The base model's name as the server knows it (what create_model names). */
    public static String baseModel() {
        return PythonReference.qwen3Tiny().toString();
    }

    /**
     * A server of the tiny Qwen3 of the caller's own, with its database and checkpoints in
     * {@code state} (kept across {@link Own#restart}): for tests that kill the engine.
     */
    public static Own own(Path state) {
        return new Own(state, ServerProcess.freePort());
    }

    /** A server a test may kill and start again on the same port, with the same database and saved states. */
    public static final class Own implements AutoCloseable {
        private final Path state;
        private final int port;
        private ServerProcess.Running running;

        private Own(Path state, int port) {
            this.state = state;
            this.port = port;
            start();
        }

        public URI url() {
            return running.base();
        }

        /** Kills the server and its engine (nothing saved on the way out), then starts it again. */
        public void restart() {
            running.kill();
            start();
        }

        private void start() {
            running = ServerProcess.run("SkyRL's Tinker server", command(PythonReference.tinkerHome(), PythonReference.qwen3Tiny(), state),
                    env(PythonReference.tinkerHome()), state.resolve("tinker.log"), "/api/v1/healthz", Duration.ofMinutes(5), port);
        }

        @Override
        public void close() {
            running.kill();
        }
    }

    private static URI start(Path home, Path model) {
        Path uv = home.resolve("uv/bin/uv");
        if (!Files.isExecutable(uv)) {
            throw new IllegalStateException("no uv at " + uv + "; make the Tinker engine's environment with: dev/stack python");
        }
        Path state = Path.of("target", "tinker").toAbsolutePath();
        try {
            Files.createDirectories(state);
            Files.deleteIfExists(state.resolve("tinker.db")); // a fresh database each run: nothing of an earlier run's models
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return ServerProcess.start("SkyRL's Tinker server", command(home, model, state), env(home), Path.of("target", "tinker.log").toAbsolutePath(),
                "/api/v1/healthz", Duration.ofMinutes(5));
    }

    private static IntFunction<List<String>> command(Path home, Path model, Path state) {
        Path uv = home.resolve("uv/bin/uv");
        Path project = PythonReference.scripts().getParent().resolve("tinker");
        return port -> List.of(uv.toString(), "run", "--project", project.toString(), "--frozen", "--offline",
                "-m", "skyrl.tinker.api", "--base-model", model.toString(), "--backend", "jax",
                "--database-url", "sqlite:///" + state.resolve("tinker.db"), "--checkpoints-base", state.resolve("checkpoints").toString(),
                "--host", "127.0.0.1", "--port", Integer.toString(port));
    }

    private static Map<String, String> env(Path home) {
        Path uv = home.resolve("uv/bin/uv");
        return Map.of("PATH", uv.getParent() + ":" + System.getenv().getOrDefault("PATH", "/usr/bin:/bin"),
                "UV_PROJECT_ENVIRONMENT", home.resolve("venv").toString(),
                "UV_CACHE_DIR", home.getParent().resolve("uv-cache").toString(),
                "JAX_PLATFORMS", "cpu",
                "HF_HUB_OFFLINE", "1");
    }
}
