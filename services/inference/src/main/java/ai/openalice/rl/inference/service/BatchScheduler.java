package ai.openalice.rl.inference.service;

import ai.openalice.rl.inference.config.InferenceConfig;
import ai.openalice.rl.policy.Completion;
import ai.openalice.rl.policy.CompletionRequest;
import ai.openalice.rl.policy.DecodeBatch;
import ai.openalice.rl.policy.Generation;
import ai.openalice.rl.policy.KvSequence;
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
import java.util.Optional;
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

    /** Hears each token a generation takes that does not end it (called on the batch loop: it must not block). */
    public interface Progress {
        void tokens(int[] tokens, double[] logprobs);

        Progress NONE = (tokens, logprobs) -> {};
    }

    private record Job(Generation gen, LoadedModel model, int[] prompt, CompletableFuture<Completion> result, Progress progress) {
        void advanced() {
            progress.tokens(gen.tokens(), gen.logprobs());
        }
    }

    private static final class Active {
        final Job job;
        final KvSequence seq;
        int next;

        Active(Job job, KvSequence seq, int next) {
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

    /** Sequences being decoded now (the inference_active_sequences gauge). */
    public int activeSequences() {
        return activeCount.get();
    }

    /** Queues a generation on {@code model} (already acquired); the future ends with its completion. Empty when the queue is full. */
    public Optional<CompletableFuture<Completion>> submit(CompletionRequest request, LoadedModel model) {
        return submit(request, model, Progress.NONE);
    }

    /** The same, with {@code progress} told of each token as it is sampled (a stream's). */
    public Optional<CompletableFuture<Completion>> submit(CompletionRequest request, LoadedModel model, Progress progress) {
        var gen = new Generation(request, model.tokenizer(), model.manifest().contextLength());
        var job = new Job(gen, model, request.prompt(), new CompletableFuture<>(), progress);
        return waiting.offer(job) ? Optional.of(job.result()) : Optional.empty();
    }

    /** The sequences of one version decoded together; the batch is rebuilt only when its membership changes. */
    private static final class Group {
        final List<Active> actives = new ArrayList<>();
        /** Ended since the last regroup; their caches come out of the batch then, for the prefix cache. */
        final List<Active> finished = new ArrayList<>();
        DecodeBatch batch;
        boolean changed;
    }

    private void run() {
        Map<LoadedModel, Group> groups = new LinkedHashMap<>();
        while (running) {
            try {
                if (groups.isEmpty()) {
                    Job first = waiting.poll(200, TimeUnit.MILLISECONDS);
                    if (first == null) {
                        continue;
                    }
                    admit(first, groups);
                }
                Job more;
                while (activeCount.get() < config.maxBatch() && (more = waiting.poll()) != null) {
                    admit(more, groups);
                }
                step(groups);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                break;
            } catch (RuntimeException | OutOfMemoryError e) {
                // the loop lives on: a request too big for the heap fails (its memory freed with it), the service keeps serving
                LOG.errorf(e, "batch step failed; failing its %d request(s)", activeCount.get());
                for (Group g : groups.values()) {
                    g.actives.forEach(a -> fail(a.job, e));
                    if (g.batch != null) {
                        g.batch.close();
                    }
                }
                groups.clear();
                activeCount.set(0);
            }
        }
    }

    private void admit(Job job, Map<LoadedModel, Group> groups) {
        try {
            var seq = new KvSequence[1];
            var decoder = job.model().decoder();
            long reusedBefore = decoder.prefixCache().reusedTokens();
            float[] logits = decoder.prefill(job.prompt(), seq);
            long reused = decoder.prefixCache().reusedTokens() - reusedBefore;
            metrics.counter("inference_prompt_tokens_total", "source", "prefix_cache").increment(reused);
            metrics.counter("inference_prompt_tokens_total", "source", "computed").increment(job.prompt().length - reused);
            int next = job.gen().accept(logits);
            if (next < 0) {
                decoder.remember(job.prompt(), job.gen().tokens(), seq[0]);
                finish(job);
            } else {
                job.advanced();
                Group g = groups.computeIfAbsent(job.model(), k -> new Group());
                g.actives.add(new Active(job, seq[0], next));
                g.changed = true;
                activeCount.incrementAndGet();
            }
        } catch (RuntimeException | OutOfMemoryError e) {
            LOG.errorf(e, "prefill of a %d-token prompt failed", job.prompt().length);
            fail(job, e);
        }
    }

    private void step(Map<LoadedModel, Group> groups) {
        for (var it = groups.entrySet().iterator(); it.hasNext(); ) {
            var e = it.next();
            Group g = e.getValue();
            if (g.changed) {
                // Members joined or left: bring the caches out of the old batch and regroup.
                if (g.batch != null) {
                    g.batch.release();
                    for (Active a : g.finished) {
                        e.getKey().decoder().remember(a.job.prompt(), a.job.gen().tokens(), a.seq);
                    }
                }
                g.finished.clear();
                g.batch = g.actives.isEmpty() ? null : e.getKey().decoder().batch(g.actives.stream().map(a -> a.seq).toList());
                g.changed = false;
            }
            if (g.batch == null) {
                it.remove();
                continue;
            }
            int[] tokens = g.actives.stream().mapToInt(a -> a.next).toArray();
            float[][] logits = g.batch.step(tokens);
            metrics.counter("inference_generated_tokens_total").increment(tokens.length);
            for (int i = 0; i < g.actives.size(); i++) {
                Active a = g.actives.get(i);
                int next = a.job.gen().accept(logits[i]);
                if (next < 0) {
                    finish(a.job);
                    a.next = -1;
                    g.finished.add(a);
                    g.changed = true;
                } else {
                    a.next = next;
                    a.job.advanced();
                }
            }
            if (g.changed) {
                int before = g.actives.size();
                g.actives.removeIf(a -> a.next < 0);
                activeCount.addAndGet(g.actives.size() - before);
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

    private void fail(Job job, Throwable e) {
        try {
            job.result().completeExceptionally(e);
        } finally {
            registry.release(job.model());
        }
    }
}
