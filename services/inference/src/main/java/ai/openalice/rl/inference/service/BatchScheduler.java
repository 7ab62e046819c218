package ai.openalice.rl.inference.service;

import ai.openalice.rl.inference.config.InferenceConfig;
import ai.openalice.rl.policy.Completion;
import ai.openalice.rl.policy.CompletionRequest;
import ai.openalice.rl.policy.Generation;
import ai.openalice.rl.policy.OrtDecoder;
import io.micrometer.core.instrument.MeterRegistry;
import io.quarkus.runtime.ShutdownEvent;
import io.quarkus.runtime.StartupEvent;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import jakarta.inject.Inject;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.jboss.logging.Logger;

/**
 * Continuous batching: one loop admits waiting requests (prefilling each prompt) between decode
 * steps, and steps every active sequence of a version together, so a request joins a running
 * batch at the next step instead of waiting for it to drain. Each request keeps the version it
 * was admitted with until it ends.
 */
@ApplicationScoped
public class BatchScheduler {
    private static final Logger LOG = Logger.getLogger(BatchScheduler.class);

    @Inject
    InferenceConfig config;

    @Inject
    ModelRegistry registry;

    @Inject
    MeterRegistry metrics;

    private BlockingQueue<Job> waiting;
    private final AtomicInteger activeCount = new AtomicInteger();
    private volatile boolean running;
    private Thread loop;

    private record Job(Generation gen, LoadedModel model, int[] prompt, CompletableFuture<Completion> result) {}

    private static final class Active {
        final Job job;
        final OrtDecoder.Sequence seq;
        int next;

        Active(Job job, OrtDecoder.Sequence seq, int next) {
            this.job = job;
            this.seq = seq;
            this.next = next;
        }
    }

    void onStart(@Observes StartupEvent ev) {
        waiting = new ArrayBlockingQueue<>(config.maxQueue());
        metrics.gauge("inference_active_sequences", activeCount);
        metrics.gaugeCollectionSize("inference_waiting_requests", List.of(), waiting);
        running = true;
        loop = Thread.ofPlatform().name("inference-batch-loop").daemon().start(this::run);
    }

    void onStop(@Observes ShutdownEvent ev) {
        running = false;
        if (loop != null) {
            loop.interrupt();
        }
    }

    /** Queues a generation on {@code model} (already acquired); the future ends with its completion. Empty when the queue is full. */
    public java.util.Optional<CompletableFuture<Completion>> submit(CompletionRequest request, LoadedModel model) {
        var gen = new Generation(request, model.tokenizer(), model.manifest().config().contextLength());
        var job = new Job(gen, model, request.prompt(), new CompletableFuture<>());
        return waiting.offer(job) ? java.util.Optional.of(job.result()) : java.util.Optional.empty();
    }

    private void run() {
        var active = new ArrayList<Active>();
        while (running) {
            try {
                if (active.isEmpty()) {
                    Job first = waiting.poll(200, TimeUnit.MILLISECONDS);
                    if (first == null) {
                        continue;
                    }
                    admit(first, active);
                }
                Job more;
                while (active.size() < config.maxBatch() && (more = waiting.poll()) != null) {
                    admit(more, active);
                }
                step(active);
                activeCount.set(active.size());
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                break;
            } catch (RuntimeException e) {
                LOG.errorf(e, "batch step failed; failing its %d request(s)", active.size());
                for (Active a : active) {
                    fail(a.job, e);
                }
                active.clear();
            }
        }
    }

    private void admit(Job job, List<Active> active) {
        try {
            var seq = new OrtDecoder.Sequence[1];
            float[] logits = job.model().decoder().prefill(job.prompt(), seq);
            int next = job.gen().accept(logits);
            if (next < 0) {
                finish(job);
            } else {
                active.add(new Active(job, seq[0], next));
            }
        } catch (RuntimeException e) {
            fail(job, e);
        }
    }

    private void step(List<Active> active) {
        Map<LoadedModel, List<Active>> byModel = new LinkedHashMap<>();
        for (Active a : active) {
            byModel.computeIfAbsent(a.job.model(), k -> new ArrayList<>()).add(a);
        }
        for (var e : byModel.entrySet()) {
            List<Active> group = e.getValue();
            int[] tokens = group.stream().mapToInt(a -> a.next).toArray();
            float[][] logits = e.getKey().decoder().step(group.stream().map(a -> a.seq).toList(), tokens);
            metrics.counter("inference_generated_tokens_total").increment(group.size());
            for (int i = 0; i < group.size(); i++) {
                Active a = group.get(i);
                int next = a.job.gen().accept(logits[i]);
                if (next < 0) {
                    finish(a.job);
                    active.remove(a);
                } else {
                    a.next = next;
                }
            }
        }
    }

    private void finish(Job job) {
        try {
            job.result().complete(job.gen().result(job.model().version()));
        } finally {
            registry.release(job.model());
        }
    }

    private void fail(Job job, Exception e) {
        try {
            job.result().completeExceptionally(e);
        } finally {
            registry.release(job.model());
        }
    }
}
