package ai.openalice.rl.tracking;

import ai.openalice.rl.events.RewardScored;
import ai.openalice.rl.events.Trajectory;
import ai.openalice.rl.retry.Backoff;
import io.opentelemetry.api.common.Attributes;
import io.opentelemetry.exporter.otlp.http.trace.OtlpHttpSpanExporter;
import io.opentelemetry.sdk.resources.Resource;
import io.opentelemetry.sdk.trace.data.SpanData;
import io.opentelemetry.sdk.trace.export.SpanExporter;
import java.net.URI;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import java.util.logging.Logger;

/**
 * Scored episodes exported as traces ({@link EpisodeSpans}) over OTLP/HTTP to any OpenTelemetry
 * backend — MLflow's {@code /v1/traces} among them — off the caller's thread, in batches. The
 * backend away is waited out (full jitter up to a minute, said once); what waits is bounded
 * ({@value #MAX_PENDING} episodes, the oldest left out past it, counted in {@link #leftOut()}).
 * Headers may not be known at the start (MLflow's run id comes when the run opens): nothing is sent
 * until {@code headers} gives them.
 */
public final class EpisodeTraces implements AutoCloseable {
    private static final Logger LOG = Logger.getLogger(EpisodeTraces.class.getName());
    static final int MAX_PENDING = 5_000;
    static final int BATCH = 32;

    private record Episode(RewardScored scored, Supplier<Trajectory> trajectory, Instant scoredAt) {}

    private final URI endpoint;
    private final Supplier<Map<String, String>> headers;
    private final SpanExporter exporter;
    private final Resource resource;
    private final Deque<Episode> pending = new ArrayDeque<>();
    private final Thread worker;
    private volatile boolean closed;
    private volatile String away;
    private long exported;
    private long leftOut;

    /**
     * {@code endpoint}: the OTLP traces URL ({@code …/v1/traces}); {@code headers}: sent with each
     * export, null while not known yet; {@code service}: the resource's {@code service.name}.
     */
    public EpisodeTraces(URI endpoint, Supplier<Map<String, String>> headers, String service) {
        this.endpoint = endpoint;
        this.headers = headers;
        this.resource = Resource.create(Attributes.builder().put("service.name", service).build());
        this.exporter = OtlpHttpSpanExporter.builder().setEndpoint(endpoint.toString()).setTimeout(Duration.ofSeconds(30))
                .setHeaders(() -> {
                    var h = headers.get();
                    return h == null ? Map.of() : h;
                }).build();
        this.worker = Thread.ofPlatform().daemon().name("episode-traces").start(this::work);
    }

    /** MLflow's OTLP endpoint and headers for a run: its traces are the experiment's, linked to the run. */
    public static EpisodeTraces toMlflow(URI mlflow, Supplier<MlflowClient.Run> run, String service) {
        String base = mlflow.toString().replaceAll("/+$", "");
        return new EpisodeTraces(URI.create(base + "/v1/traces"), () -> {
            var r = run.get();
            return r == null ? null : Map.of("x-mlflow-experiment-id", r.experimentId(), "x-mlflow-run-id", r.runId());
        }, service);
    }

    /** Hands an episode over; {@code trajectory} is read on the exporting thread (it may be an artifact to fetch). */
    public synchronized void submit(RewardScored scored, Supplier<Trajectory> trajectory, Instant scoredAt) {
        if (closed) {
            return;
        }
        if (pending.size() >= MAX_PENDING) {
            pending.removeFirst();
            if (leftOut++ % 1000 == 0) {
                LOG.warning("the trace backend at " + endpoint + " is away and " + MAX_PENDING + " episodes wait: the oldest traces are left out ("
                        + leftOut + " so far)");
            }
        }
        pending.addLast(new Episode(scored, trajectory, scoredAt));
        notifyAll();
    }

    public synchronized long exported() {
        return exported;
    }

    public synchronized long leftOut() {
        return leftOut;
    }

    public String away() {
        return away;
    }

    /** Waits until every episode handed over is exported (or left out), up to {@code wait}; false when time ran out. */
    public boolean flush(Duration wait) throws InterruptedException {
        long deadline = System.nanoTime() + wait.toNanos();
        synchronized (this) {
            while (!pending.isEmpty() && System.nanoTime() < deadline) {
                wait(Math.max(1, Math.min(200, (deadline - System.nanoTime()) / 1_000_000)));
            }
            return pending.isEmpty();
        }
    }

    @Override
    public void close() {
        synchronized (this) {
            closed = true;
            notifyAll();
        }
        worker.interrupt();
        exporter.shutdown().join(5, TimeUnit.SECONDS);
    }

    private void work() {
        try {
            while (true) {
                List<Episode> batch = next();
                if (batch == null) {
                    return;
                }
                while (headers.get() == null) { // MLflow's run not open yet
                    Thread.sleep(1000);
                }
                var spans = spans(batch);
                var backoff = Backoff.of(Duration.ofSeconds(1), Duration.ofMinutes(1));
                while (!spans.isEmpty()) {
                    var result = exporter.export(spans).join(60, TimeUnit.SECONDS);
                    if (result.isSuccess()) {
                        if (away != null) {
                            LOG.info("the trace backend at " + endpoint + " answers again");
                            away = null;
                        }
                        break;
                    }
                    if (away == null) {
                        Throwable why = result.getFailureThrowable();
                        LOG.warning("the trace backend at " + endpoint + " did not take " + batch.size() + " episodes' traces ("
                                + (why == null ? "no reason given" : why.getMessage()) + "); they wait for it");
                    }
                    away = "export failed";
                    backoff.sleep();
                }
                synchronized (this) {
                    batch.forEach(pending::remove);
                    exported += batch.size();
                    notifyAll();
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private synchronized List<Episode> next() throws InterruptedException {
        while (pending.isEmpty() && !closed) {
            wait();
        }
        if (pending.isEmpty()) {
            return null;
        }
        var out = new ArrayList<Episode>();
        var it = pending.iterator();
        while (it.hasNext() && out.size() < BATCH) {
            out.add(it.next());
        }
        return out;
    }

    private List<SpanData> spans(List<Episode> batch) {
        var out = new ArrayList<SpanData>();
        for (Episode e : batch) {
            try {
                out.addAll(EpisodeSpans.of(e.scored(), e.trajectory().get(), e.scoredAt(), resource));
            } catch (RuntimeException ex) { // a trajectory that cannot be read: its trace is left out, saying why
                LOG.warning("no trace for rollout " + e.scored().ref().rolloutId() + ": its trajectory could not be read (" + ex.getMessage() + ")");
            }
        }
        return out;
    }
}
