package ai.openalice.rl.inference.service;

import ai.openalice.rl.inference.config.InferenceConfig;
import ai.openalice.rl.inference.engine.EngineException;
import ai.openalice.rl.inference.engine.Engines;
import ai.openalice.rl.model.checkpoint.Checkpoint;
import ai.openalice.rl.model.checkpoint.CheckpointException;
import ai.openalice.rl.model.checkpoint.Manifest;
import ai.openalice.rl.policy.CompletionRequest;
import ai.openalice.rl.policy.Generation;
import ai.openalice.rl.policy.KvSequence;
import ai.openalice.rl.policy.OrtDecoder;
import ai.openalice.rl.policy.PolicyException;
import io.micrometer.core.instrument.MeterRegistry;
import io.quarkus.runtime.StartupEvent;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import jakarta.inject.Inject;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.concurrent.atomic.AtomicReference;
import org.jboss.logging.Logger;

/**
 * The loaded policy versions and the current one. A new checkpoint is verified (manifest sha256s,
 * and the ONNX file's sha256 against the event), loaded, warmed with a short generation, and only
 * then made current, atomically; a corrupt or missing checkpoint is refused with a logged reason
 * and the current version keeps serving. Older versions stay loaded (up to {@code keep-versions})
 * for requests that pin them.
 */
@ApplicationScoped
public class ModelRegistry {
    private static final Logger LOG = Logger.getLogger(ModelRegistry.class);

    @Inject
    InferenceConfig config;

    @Inject
    MeterRegistry metrics;

    private final ConcurrentSkipListMap<Long, LoadedModel> loaded = new ConcurrentSkipListMap<>();
    private final AtomicReference<LoadedModel> current = new AtomicReference<>();

    @Inject
    Engines engines;

    void onStart(@Observes StartupEvent ev) {
        metrics.gauge("inference_policy_version", current, c -> c.get() == null ? -1 : c.get().version());
        config.checkpoint().filter(p -> !p.toString().isBlank()).ifPresent(p -> {
            if (engines.gateway().isPresent()) { // the external engine serves it; nothing loads here
                long version = Checkpoint.verify(p).policyVersion();
                try {
                    LOG.infof("start checkpoint v%d: %s", version, engines.gateway().get().load(version, p));
                } catch (EngineException e) {
                    LOG.errorf("the start checkpoint %s did not reach the engine: %s (the next checkpoints.published will)", p, e.getMessage());
                }
                return;
            }
            var outcome = load(p, null);
            if (outcome instanceof LoadOutcome.Refused r) {
                LOG.errorf("the start checkpoint %s was refused: %s", p, r.reason());
            }
        });
    }

    /** What loading a checkpoint did. */
    public sealed interface LoadOutcome {
        record Serving(long version, long millis) implements LoadOutcome {}

        record Refused(String reason) implements LoadOutcome {}
    }

    /** Verifies, loads, warms and swaps in a checkpoint; {@code onnxSha256} (when given) must match its ONNX file. */
    public synchronized LoadOutcome load(Path dir, String onnxSha256) {
        long start = System.nanoTime();
        Manifest m;
        try {
            m = Checkpoint.verify(dir);
            if (onnxSha256 != null) {
                String actual = Checkpoint.sha256(dir.resolve(Checkpoint.ONNX));
                if (!actual.equals(onnxSha256)) {
                    throw new CheckpointException(CheckpointException.Reason.CORRUPT, "model.onnx has sha256 " + actual + ", the event says " + onnxSha256);
                }
            }
        } catch (CheckpointException | IOException e) {
            metrics.counter("inference_checkpoints_refused_total").increment();
            LOG.warnf("checkpoint %s refused: %s; still serving v%s", dir, e.getMessage(), current() == null ? "-" : current().version());
            return new LoadOutcome.Refused(e.getMessage());
        }
        if (current.get() != null && m.policyVersion() <= current.get().version()) {
            return new LoadOutcome.Refused("v" + m.policyVersion() + " is not newer than the current v" + current.get().version());
        }
        LoadedModel model;
        try {
            var tokenizer = Checkpoint.tokenizer(dir, m);
            var decoder = new OrtDecoder(dir.resolve(Checkpoint.ONNX), m.cache(), config.threads(), config.device() == InferenceConfig.Device.CUDA,
                    (long) config.prefixCacheMb() << 20);
            model = new LoadedModel(m.policyVersion(), decoder, tokenizer, m, dir);
            warm(model);
        } catch (PolicyException | CheckpointException e) {
            metrics.counter("inference_checkpoints_refused_total").increment();
            LOG.warnf("checkpoint %s failed to load: %s", dir, e.getMessage());
            return new LoadOutcome.Refused(e.getMessage());
        }
        loaded.put(model.version(), model);
        current.set(model);
        retireOld();
        long ms = (System.nanoTime() - start) / 1_000_000;
        metrics.timer("inference_swap_seconds").record(Duration.ofMillis(ms));
        LOG.infof("serving policy v%d (step %d) from %s, loaded and warmed in %d ms", model.version(), m.step(), dir, ms);
        return new LoadOutcome.Serving(model.version(), ms);
    }

    /** A short greedy generation: the first request on a new version does not pay for its warm-up. */
    private static void warm(LoadedModel model) {
        var gen = new Generation(CompletionRequest.greedy(model.tokenizer().encode("warm up"), 4), model.tokenizer(),
                model.manifest().contextLength());
        var seq = new KvSequence[1];
        int next = gen.accept(model.decoder().prefill(model.tokenizer().encode("warm up"), seq));
        while (next >= 0) {
            next = gen.accept(model.decoder().step(List.of(seq[0]), new int[] {next})[0]);
        }
    }

    private void retireOld() {
        List<Long> versions = new ArrayList<>(loaded.descendingKeySet());
        for (int i = config.keepVersions(); i < versions.size(); i++) {
            LoadedModel old = loaded.remove(versions.get(i));
            if (old != null) {
                old.retire();
            }
        }
    }

    public LoadedModel current() {
        return current.get();
    }

    /** Takes a reference to the pinned version, or to the current one. */
    public Optional<LoadedModel> acquire(Long pin) {
        for (int attempt = 0; attempt < 3; attempt++) {
            LoadedModel m = pin == null ? current.get() : loaded.get(pin);
            if (m == null) {
                return Optional.empty();
            }
            if (m.acquire()) {
                return Optional.of(m);
            }
        }
        return Optional.empty();
    }

    public void release(LoadedModel m) {
        m.release();
    }

    public List<Long> versions() {
        return new ArrayList<>(loaded.keySet());
    }
}
