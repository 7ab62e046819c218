package ai.openalice.rl.trainer.service;

import ai.openalice.rl.events.ArtifactRef;
import ai.openalice.rl.events.CheckpointPublished;
import ai.openalice.rl.events.Envelope;
import ai.openalice.rl.events.EventCodec;
import ai.openalice.rl.model.checkpoint.Checkpoint;
import ai.openalice.rl.model.checkpoint.Manifest;
import ai.openalice.rl.model.learner.PolicyLearner;
import ai.openalice.rl.servicekit.DiskSpace;
import ai.openalice.rl.trainer.repository.TrainerStore;
import ai.openalice.rl.trainer.tinker.TinkerState;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicLong;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.jboss.logging.Logger;

/**
 * Writes a checkpoint (ONNX graph unless an external engine serves it, manifest, parameters,
 * optimizer state) to the artifact store,
 * then registers it, commits the ledger of the steps it holds and queues checkpoints.published —
 * in one transaction. A folder left by a crash between the two is an orphan: it is replaced.
 * Then older folders go, by the {@link Retention}: a checkpoint per step is 15 MB for the built-in
 * model, 200 GB a fortnight.
 */
final class CheckpointWriter {
    private static final Logger LOG = Logger.getLogger(CheckpointWriter.class);
    private static final Pattern VERSION_DIR = Pattern.compile("v(\\d+)");

    /** Keep the newest {@code last} versions, and every version that is a multiple of {@code every} (0: none). */
    record Retention(int last, int every) {
        Retention {
            if (last < 1 || every < 0) {
                throw new IllegalArgumentException("checkpoint retention: keep-checkpoints must be at least 1 and keep-checkpoint-every"
                        + " at least 0, got " + last + " and " + every);
            }
        }

        /** Whether version {@code v} may go once {@code latest} is registered. */
        boolean prunable(long v, long latest) {
            return v <= latest - last && (every == 0 || v % every != 0);
        }
    }

    private final TrainerStore store;
    private final Path root;
    private final String tokenizer;
    private final Retention retention;
    private final Optional<CheckpointUpload> upload;

    /** {@code upload}: where checkpoints are copied for the services that read them (a bucket); empty: they read {@code root}. */
    CheckpointWriter(TrainerStore store, Path root, String tokenizer, Retention retention, Optional<CheckpointUpload> upload) {
        this.store = store;
        this.root = root;
        this.tokenizer = tokenizer;
        this.retention = retention;
        this.upload = upload;
    }

    /**
     * Writes, registers and announces checkpoint {@code policyVersion}. A volume that is full waits
     * for room and the checkpoint is written again (training pauses; the learner's state is kept),
     * counted in {@code fullVolume}; any other failure is an error naming the folder.
     */
    CheckpointPublished write(PolicyLearner learner, long policyVersion, long step, Map<String, Double> metrics, List<TrainerStore.Pending> pending,
            CheckpointPublished.Terms terms) {
        try {
            return DiskSpace.waitingForRoom("checkpoint v" + policyVersion, root,
                    () -> writeOnce(learner, policyVersion, step, metrics, pending, terms), () -> false, fullVolume::incrementAndGet);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while waiting for room for checkpoint v" + policyVersion, e);
        }
    }

    /** Times a checkpoint met a full volume and waited (a gauge's source). */
    final AtomicLong fullVolume = new AtomicLong();

    private CheckpointPublished writeOnce(PolicyLearner learner, long policyVersion, long step, Map<String, Double> metrics,
            List<TrainerStore.Pending> pending, CheckpointPublished.Terms terms) throws IOException {
        Path dir = root.resolve("v" + policyVersion);
        Files.createDirectories(root);
        if (Files.exists(dir)) {
            deleteTree(dir); // not in the registry (we only get here for a new version): an orphan of a crash
        }
        Manifest m = learner.checkpoint(dir, tokenizer, policyVersion, step);
        // without trainer.export-onnx a HuggingFace model's checkpoint has no graph (an external engine serves it); its first one
        // has no optimizer state yet (the built-in GPT's writes an empty one)
        var refs = refs(dir, policyVersion, m, false);
        var onnx = refs.get(Checkpoint.ONNX);
        var event = new CheckpointPublished(policyVersion, step, onnx, refs.get(Manifest.FILE_NAME), refs.get(Checkpoint.OPTIMIZER), metrics, terms,
                sampler(dir));
        var env = Envelope.of(event);
        store.commit(policyVersion, step, dir.toString(), onnx == null ? null : onnx.sha256(), EventCodec.mapper().writeValueAsString(metrics),
                pending, env);
        prune(policyVersion);
        return event;
    }

    /**
     * Announces the registered checkpoint {@code latest} again with this process's {@code terms}: a
     * trainer restarted with other settings (imitation, then RL) states them at once rather than at
     * its next checkpoint. The inference service ignores a version it already serves.
     */
    void announce(TrainerStore.Registered latest, CheckpointPublished.Terms terms) {
        Path dir = Path.of(latest.dir());
        try {
            Manifest m = Checkpoint.verify(dir);
            var refs = refs(dir, latest.policyVersion(), m, true);
            var event = new CheckpointPublished(latest.policyVersion(), latest.step(), refs.get(Checkpoint.ONNX), refs.get(Manifest.FILE_NAME),
                    refs.get(Checkpoint.OPTIMIZER), Map.of(), terms, sampler(dir));
            var env = Envelope.of(event);
            store.enqueue(env);
        } catch (IOException e) {
            throw new IllegalStateException("cannot announce checkpoint v" + latest.policyVersion() + " at " + dir + ": " + e.getMessage(), e);
        }
    }

    /** The Tinker engine's sampler weights of the checkpoint in {@code dir} (runners with runner.policy=tinker sample there); null for the built-in learner's. */
    private static String sampler(Path dir) {
        return TinkerState.read(dir).map(TinkerState::sampler).orElse(null);
    }

    /** Deletes the folders the retention lets go once {@code latest} is registered; returns their versions. A failure is logged, not thrown. */
    List<Long> prune(long latest) {
        var gone = new ArrayList<Long>();
        try (Stream<Path> dirs = Files.list(root)) {
            for (Path d : dirs.toList()) {
                var m = VERSION_DIR.matcher(d.getFileName().toString());
                if (m.matches() && Files.isDirectory(d) && retention.prunable(Long.parseLong(m.group(1)), latest)) {
                    deleteTree(d);
                    gone.add(Long.parseLong(m.group(1)));
                }
            }
        } catch (IOException | RuntimeException e) {
            LOG.warnf("checkpoint retention in %s: %s (next checkpoint retries)", root, e.getMessage());
        }
        upload.ifPresent(u -> u.delete(gone).forEach(failed -> LOG.warnf("checkpoint retention in the bucket: %s", failed)));
        return gone;
    }

    /** The references the event names, by file name: in the bucket when there is one, else the folder's own files. */
    private Map<String, ArtifactRef> refs(Path dir, long version, Manifest m, boolean reuse) throws IOException {
        if (upload.isPresent()) {
            return upload.get().upload(dir, version, m, reuse);
        }
        var refs = new HashMap<String, ArtifactRef>();
        for (String file : List.of(Checkpoint.ONNX, Checkpoint.OPTIMIZER)) {
            var r = ref(dir, file, m);
            if (r != null) {
                refs.put(file, r);
            }
        }
        refs.put(Manifest.FILE_NAME, manifestRef(dir));
        return refs;
    }

    /** The file as the manifest lists it; null when the checkpoint has none. */
    private static ArtifactRef ref(Path dir, String file, Manifest m) {
        var entry = m.files().get(file);
        if (entry == null) {
            return null;
        }
        return new ArtifactRef(dir.resolve(file).toUri().toString(), entry.sha256(), entry.bytes());
    }

    private static ArtifactRef manifestRef(Path dir) throws IOException {
        Path f = dir.resolve(Manifest.FILE_NAME);
        return new ArtifactRef(f.toUri().toString(), Checkpoint.sha256(f), Files.size(f));
    }

    static void deleteTree(Path dir) throws IOException {
        Checkpoint.deleteTree(dir);
    }

    /**
     * Deletes the temporary folders of checkpoints whose writing a crash interrupted ({@code v<N>.tmp-*}:
     * never registered, never read; each as large as a checkpoint). Run at start, before anything
     * is written. Returns their names; a failure is logged, not thrown.
     */
    List<String> sweepUnfinished() {
        var gone = new ArrayList<String>();
        if (!Files.isDirectory(root)) {
            return gone;
        }
        try (Stream<Path> dirs = Files.list(root)) {
            for (Path d : dirs.filter(Checkpoint::unfinished).toList()) {
                deleteTree(d);
                gone.add(d.getFileName().toString());
            }
        } catch (IOException | RuntimeException e) {
            LOG.warnf("sweeping unfinished checkpoints in %s: %s", root, e.getMessage());
        }
        if (!gone.isEmpty()) {
            LOG.infof("removed %d unfinished checkpoint folder(s) a crash left in %s: %s", gone.size(), root, gone);
        }
        return gone;
    }
}
