package ai.openalice.rl.trainer.service;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import ai.openalice.rl.events.CheckpointPublished;
import ai.openalice.rl.events.Envelope;
import ai.openalice.rl.model.checkpoint.Checkpoint;
import ai.openalice.rl.model.checkpoint.Manifest;
import ai.openalice.rl.model.hf.DType;
import ai.openalice.rl.model.hf.HfConfig;
import ai.openalice.rl.model.hf.TinyModels;
import ai.openalice.rl.model.learner.Learner;
import ai.openalice.rl.model.learner.PolicyLearner;
import ai.openalice.rl.model.learner.SequenceBatch;
import ai.openalice.rl.trainer.repository.TrainerStore;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A checkpoint that meets a full volume — a 512 KiB tmpfs mounted for the test (root only) and
 * filled by another file — waits for room, keeps the learner's state, and is written, verified,
 * registered once and announced when the other file goes; no temporary folder is left behind.
 */
class CheckpointDiskFullTest {
    @TempDir
    Path dir;

    @Test
    void aFullVolumePausesTheCheckpointUntilThereIsRoom() throws Exception {
        assumeTrue("root".equals(System.getProperty("user.name")), "mounting a size-limited tmpfs needs root");
        var json = TinyModels.config("qwen2");
        var config = HfConfig.of(json, "qwen2");
        var weights = TinyModels.randomWeights(config, 3);
        Path source = TinyModels.write(dir.resolve("model"), json, weights, DType.F32, 1);
        Path vol = Files.createDirectories(dir.resolve("vol"));
        run("mount", "-t", "tmpfs", "-o", "size=512k", "tmpfs", vol.toString());
        try {
            Path filler = vol.resolve("filler");
            try {
                Files.write(filler, new byte[1 << 20]); // more than the volume: it fills it and fails
            } catch (IOException full) {
                // the volume is full now, the partial file holding it
            }
            var committed = new ArrayList<Long>();
            var store = new TrainerStore() {
                @Override
                public void commit(long policyVersion, long step, String d, String onnxSha256, String metricsJson, List<Pending> pending,
                        Envelope<?> announce) {
                    committed.add(policyVersion);
                }
            };
            var writer = new CheckpointWriter(store, vol.resolve("checkpoints"), "bytes", new CheckpointWriter.Retention(3, 0), Optional.empty());
            var freed = CompletableFuture.runAsync(() -> {
                try {
                    Thread.sleep(1500);
                    Files.delete(filler);
                } catch (Exception e) {
                    throw new IllegalStateException(e);
                }
            });
            var event = writer.write(learner(config, source, weights), 1, 4, Map.of(), List.of(),
                    new CheckpointPublished.Terms(1.0, false, 4, 1, 64));
            freed.join();
            assertEquals(1, event.policyVersion());
            assertTrue(writer.fullVolume.get() >= 1, "it met the full volume first");
            Checkpoint.verify(vol.resolve("checkpoints/v1"));
            assertEquals(List.of(1L), committed, "registered once");
            try (var left = Files.list(vol.resolve("checkpoints"))) {
                assertEquals(List.of("v1"), left.map(p -> p.getFileName().toString()).toList(), "no v1.tmp-* left behind");
            }
        } finally {
            run("umount", vol.toString());
        }
    }

    /** A learner whose checkpoint is the given weights as HuggingFace files (no graph). */
    private static PolicyLearner learner(HfConfig config, Path source, Map<String, float[]> weights) {
        return new PolicyLearner() {
            public Learner.StepStats rl(SequenceBatch batch) {
                throw new UnsupportedOperationException();
            }

            public Learner.StepStats sft(SequenceBatch batch, double contextWeight) {
                throw new UnsupportedOperationException();
            }

            public int contextLength() {
                return 64;
            }

            public Manifest checkpoint(Path d, String tokenizer, long policyVersion, long step) {
                return Checkpoint.saveHf(d, config, source, weights, null, DType.F32, policyVersion, step, Map.of(), 0, false);
            }

            public void close() {}
        };
    }

    private static void run(String... cmd) throws Exception {
        var p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes());
        assertEquals(0, p.waitFor(), String.join(" ", cmd) + ": " + out);
    }
}
