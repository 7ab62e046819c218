package ai.openalice.rl.cli.train;

import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;

/**
 * The six services with the settings of the main job: the run profile ({@code RunProfile}, the
 * services' own defaults: a small GPT trained on this machine's CPU, 2 layers, width 128, 4,096-token
 * byte context) with this run's options on top, groups of {@code groupSize}, a checkpoint per step.
 * During the warm start the runner replays oracle trajectories and the trainer imitates the solved
 * ones, then the trainer, the runner (now asking the inference service) and the dispatcher restart
 * for RL.
 */
final class Services implements AutoCloseable {
    static final List<String> ALL = List.of("inference", "trainer", "rubric-prm", "verifier", "sandbox-runner", "task-dispatcher");

    private final Path state;
    private final EmbeddedConfig config;
    private final Supervisor supervisor;

    Services(Path root, Path state, Infra infra, EmbeddedConfig config) throws IOException {
        this.state = state;
        this.config = config;
        var common = infra.serviceSettings();
        common.addAll(List.of("-Dai.djl.offline=true", "-Dai.djl.pytorch.num_threads=1", "-Dai.djl.pytorch.num_interop_threads=1",
                "-DDJL_CACHE_DIR=" + state.resolve("djl")));
        this.supervisor = new Supervisor(root, state.resolve("logs"), common, infra.serviceEnvironment());
        if (infra.startedKafka()) { // the run's own broker is brought back as its services are; an external one is its owner's
            supervisor.watch("kafka", new Supervisor.Watched() {
                public boolean alive() {
                    return infra.kafkaAlive();
                }

                public void restart() throws Exception {
                    infra.restartKafka();
                }
            });
        }
    }

    Supervisor supervisor() {
        return supervisor;
    }

    /**
     * glibc's allocator for the trainer: every attention tensor of a step (tens to hundreds of MB) is
     * above its mmap threshold, so it was mapped fresh and zeroed by the kernel page by page on every
     * op — half the learner's CPU time was system time. From one heap that keeps what it frees
     * (all threads in one arena, no mmap, no trimming), a step takes half the time ({@code bench/README.md}, trainer).
     */
    static final Map<String, String> LEARNER_MALLOC = Map.of("MALLOC_ARENA_MAX", "1", "MALLOC_MMAP_MAX_", "0",
            "MALLOC_TRIM_THRESHOLD_", String.valueOf(1L << 34), "MALLOC_TOP_PAD_", String.valueOf(1L << 30));

    void startAll(boolean warmStart) throws Exception {
        supervisor.start("inference", EmbeddedConfig.jvm(config.inference(), config.inferenceHeap()));
        supervisor.start("trainer", EmbeddedConfig.jvm(config.trainer(warmStart ? "sft" : "rl"), config.trainerHeap()), LEARNER_MALLOC);
        supervisor.start("rubric-prm", EmbeddedConfig.jvm(config.rubric()));
        supervisor.start("verifier", EmbeddedConfig.jvm(config.verifier()));
        supervisor.start("sandbox-runner", runner(warmStart, warmStart ? null : config.oracleRl()));
        supervisor.start("task-dispatcher", EmbeddedConfig.jvm(config.dispatcher(warmStart)));
        supervisor.awaitReady(Duration.ofMinutes(5));
    }

    /** After the warm start: the trainer resumes its checkpoints in RL mode, the runner asks the model, the dispatcher makes groups of G. */
    void switchToRl() throws Exception {
        supervisor.start("trainer", EmbeddedConfig.jvm(config.trainer("rl"), config.trainerHeap()), LEARNER_MALLOC);
        supervisor.start("sandbox-runner", runner(false, config.oracleRl()));
        supervisor.start("task-dispatcher", EmbeddedConfig.jvm(config.dispatcher(false)));
        supervisor.awaitReady(Duration.ofMinutes(5));
    }

    private List<String> runner(boolean oracle, Double failure) {
        return EmbeddedConfig.jvm(config.runner(oracle, failure, supervisor.uri("inference", "")));
    }

    @Override
    public void close() throws InterruptedException {
        supervisor.close();
    }
}
