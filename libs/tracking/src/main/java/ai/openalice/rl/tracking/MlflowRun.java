package ai.openalice.rl.tracking;

import ai.openalice.rl.retry.Backoff;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;
import java.util.function.Supplier;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * One training run in MLflow, recorded off the caller's thread: the caller hands metrics,
 * parameters and artifacts over and goes on; a daemon thread opens the run and sends them in order.
 * MLflow away is waited out (full jitter, up to a minute between tries; said once when it goes and
 * once when it is back) — training never waits for its tracker. A refusal (a 4xx) is logged with
 * MLflow's reason and that item left out: sending it again would be refused again. What waits is
 * bounded ({@value #MAX_PENDING} items): past it the oldest metrics are left out, counted in
 * {@link #leftOut()} and said in the log.
 */
public final class MlflowRun implements AutoCloseable {
    private static final Logger LOG = Logger.getLogger(MlflowRun.class.getName());
    static final int MAX_PENDING = 20_000;

    private final MlflowClient client;
    private final Function<MlflowClient, MlflowClient.Run> opener;
    private final Deque<Item> pending = new ArrayDeque<>();
    private final Thread worker;
    private volatile MlflowClient.Run run;
    private volatile String away;
    private volatile boolean closed;
    private long leftOut;
    private long refused;

    private sealed interface Item permits Metrics, Params, Artifact, Status {}

    private record Metrics(List<MlflowClient.Metric> metrics) implements Item {}

    private record Params(Map<String, String> params, Map<String, String> tags) implements Item {}

    private record Artifact(String path, byte[] bytes) implements Item {}

    private record Status(String status, long endMillis) implements Item {}

    /** Where a run's id is kept between restarts of its owner (the trainer's database). */
    public interface RunIds {
        Optional<String> load();

        void save(String runId);
    }

    private MlflowRun(MlflowClient client, Function<MlflowClient, MlflowClient.Run> opener) {
        this.client = client;
        this.opener = opener;
        this.worker = Thread.ofPlatform().daemon().name("mlflow-run").start(this::work);
    }

    /**
     * The run {@code ids} names when MLflow still has it (set RUNNING again: a resumed training run
     * is the same MLflow run), else a new run of {@code experiment} named {@code name} with {@code tags},
     * whose id {@code ids} then keeps.
     */
    public static MlflowRun resumeOrCreate(MlflowClient client, String experiment, String name, Map<String, String> tags, RunIds ids) {
        return new MlflowRun(client, c -> {
            var known = ids.load().flatMap(c::getRun);
            if (known.isPresent()) {
                if (!known.get().status().equals("RUNNING")) {
                    c.setStatus(known.get().runId(), "RUNNING", 0);
                }
                LOG.info(() -> "MLflow run " + known.get().runId() + " at " + c.base() + " goes on (resumed)");
                return known.get();
            }
            var made = c.createRun(c.experiment(experiment), name, System.currentTimeMillis(), tags);
            ids.save(made.runId());
            LOG.info(() -> "MLflow run " + made.runId() + " at " + c.base() + " (experiment " + experiment + ")");
            return made;
        });
    }

    /** Another writer's run (the trainer's, for {@code alice-rl train}'s own figures). */
    public static MlflowRun attach(MlflowClient client, String runId) {
        return new MlflowRun(client, c -> c.getRun(runId).orElseThrow(() -> new MlflowException("RESOURCE_DOES_NOT_EXIST",
                "MLflow at " + c.base() + " has no run " + runId)));
    }

    /** The run once open; empty before (MLflow away at the start) or when it could not be opened. */
    public Optional<MlflowClient.Run> run() {
        return Optional.ofNullable(run);
    }

    /** Why MLflow is being waited for now; null when it answers. */
    public String away() {
        return away;
    }

    public synchronized long leftOut() {
        return leftOut;
    }

    public synchronized long refused() {
        return refused;
    }

    public synchronized int pending() {
        return pending.size();
    }

    /** Metrics at one step (non-finite values are left out by the client). */
    public void log(long step, Map<String, Double> values) {
        long now = System.currentTimeMillis();
        var ms = new ArrayList<MlflowClient.Metric>();
        values.forEach((k, v) -> {
            if (v != null) {
                ms.add(new MlflowClient.Metric(k, v, now, step));
            }
        });
        if (!ms.isEmpty()) {
            add(new Metrics(ms));
        }
    }

    /** Parameters (a value MLflow already has for a key and that differs goes as tag {@code changed.<key>}) and tags. */
    public void params(Map<String, String> params, Map<String, String> tags) {
        add(new Params(Map.copyOf(params), Map.copyOf(tags)));
    }

    public void artifact(String path, byte[] bytes) {
        add(new Artifact(path, bytes.clone()));
    }

    /** FINISHED, FAILED or KILLED, now. */
    public void end(String status) {
        add(new Status(status, System.currentTimeMillis()));
    }

    private synchronized void add(Item item) {
        if (closed) {
            return;
        }
        if (pending.size() >= MAX_PENDING) {
            // the oldest metrics go first; parameters, artifacts and the status are kept
            var it = pending.iterator();
            while (it.hasNext()) {
                if (it.next() instanceof Metrics) {
                    it.remove();
                    if (leftOut++ % 1000 == 0) {
                        LOG.warning("MLflow at " + client.base() + " is away and " + MAX_PENDING + " items wait: the oldest metrics are left out ("
                                + leftOut + " so far)");
                    }
                    break;
                }
            }
        }
        pending.addLast(item);
        notifyAll();
    }

    /** Waits until everything handed over so far is sent (or left out), up to {@code wait}; false when time ran out. */
    public boolean flush(Duration wait) throws InterruptedException {
        long deadline = System.nanoTime() + wait.toNanos();
        synchronized (this) {
            while ((!pending.isEmpty() || run == null && !closed) && System.nanoTime() < deadline) {
                wait(Math.max(1, Math.min(200, (deadline - System.nanoTime()) / 1_000_000)));
            }
            return pending.isEmpty() && run != null;
        }
    }

    @Override
    public void close() {
        synchronized (this) {
            closed = true;
            notifyAll();
        }
        worker.interrupt();
    }

    private void work() {
        try {
            run = untilSent(() -> opener.apply(client));
            while (true) {
                Item item;
                synchronized (this) {
                    while (pending.isEmpty() && !closed) {
                        wait();
                    }
                    if (pending.isEmpty()) {
                        return;
                    }
                    item = pending.peekFirst();
                }
                untilSent(() -> {
                    send(item);
                    return Boolean.TRUE;
                });
                synchronized (this) {
                    pending.remove(item);
                    notifyAll();
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (MlflowException e) {
            LOG.log(Level.WARNING, "the MLflow run could not be opened; nothing more is sent to MLflow: " + e.getMessage());
            synchronized (this) {
                closed = true;
                refused++;
                pending.clear();
                notifyAll();
            }
        }
    }

    private void send(Item item) {
        try {
            switch (item) {
                case Metrics m -> client.logBatch(run.runId(), m.metrics(), Map.of(), Map.of());
                case Params p -> sendParams(p);
                case Artifact a -> client.upload(run, a.path(), a.bytes());
                case Status s -> client.setStatus(run.runId(), s.status(), s.endMillis());
            }
        } catch (MlflowException e) {
            synchronized (this) {
                refused++;
            }
            LOG.warning("MLflow refused an item of run " + run.runId() + " (left out): " + e.getMessage());
        }
    }

    /**
     * MLflow keeps a parameter's first value and refuses another: a resumed run's settings that
     * changed (a new learning rate, RL after the warm start) go as tags {@code changed.<name>}, the
     * latest value; new ones as parameters.
     */
    private void sendParams(Params p) {
        var known = client.params(run.runId());
        var fresh = new LinkedHashMap<String, String>();
        var tags = new LinkedHashMap<>(p.tags());
        p.params().forEach((k, v) -> {
            String was = known.get(k);
            if (was == null) {
                fresh.put(k, v);
            } else if (!was.equals(MlflowClient.cut(v))) {
                tags.put("changed." + k, v);
            }
        });
        client.logBatch(run.runId(), List.of(), fresh, tags);
    }

    /** Calls {@code call} until MLflow answers; a refusal comes through. */
    private <T> T untilSent(Supplier<T> call) throws InterruptedException {
        var backoff = Backoff.of(Duration.ofSeconds(1), Duration.ofMinutes(1));
        while (true) {
            try {
                T t = call.get();
                if (away != null) {
                    LOG.info("MLflow at " + client.base() + " answers again");
                    away = null;
                }
                return t;
            } catch (MlflowUnavailableException e) {
                if (away == null) {
                    LOG.warning("MLflow is away (" + e.getMessage() + "); what the run records waits for it");
                }
                away = e.getMessage();
                if (closed) {
                    throw new InterruptedException("closed while MLflow is away");
                }
                backoff.sleep();
            }
        }
    }
}
