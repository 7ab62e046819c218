package ai.openalice.rl.cli.train;

import ai.openalice.rl.cli.KafkaClientConfig;
import ai.openalice.rl.events.EventCodec;
import ai.openalice.rl.sandbox.local.LocalSandboxProvider;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code alice-rl train}: the whole loop on this machine — Kafka, PostgreSQL, the six services as
 * processes, the bundled tiny-swe suite or the user's task file ({@code --tasks}), a supervised warm start on oracle trajectories when no
 * checkpoint exists, then GRPO++ until {@code --steps} or Ctrl-C, with a live progress line and
 * held-out probes; an HTML report at the end. Everything lives in {@code --state}; running again
 * resumes (the trainer from its last checkpoint, the dispatcher from its database).
 */
@Command(name = "train", mixinStandardHelpOptions = true,
        description = "Run always-on RL on the bundled task suite (or --tasks FILE) with embedded defaults (Ctrl-C stops everything it started; run again to resume).")
public final class TrainCommand implements Callable<Integer> {
    @Spec
    CommandSpec spec;

    @Option(names = "--state", paramLabel = "DIR", description = "State folder (default: .alice-rl/train in the repository).")
    Path state;

    @Option(names = "--steps", defaultValue = "0", description = "Stop after this many RL steps (0: run until Ctrl-C).")
    long steps;

    @Option(names = "--minutes", defaultValue = "0", description = "Time limit in minutes, counted once the services are up: the warm start,"
            + " RL and the final evaluation fit in it — RL ends early enough to leave the final evaluation its estimated time, and what still"
            + " does not fit is cut, as the report says (0: no limit).")
    long minutes;

    @Option(names = "--final-eval", paramLabel = "all|off|N", defaultValue = "all", description = "The held-out evaluation at the end: every"
            + " held-out task (${DEFAULT-VALUE}), none (off), or the first N of them; with --minutes, no more than fit.")
    String finalEval;

    /** {@code --final-eval} read: null for every held-out task. */
    private Integer finalTasks;

    @Option(names = "--kafka", paramLabel = "HOST:PORT", description = "Use this Kafka instead of starting one.")
    String kafka;

    @Option(names = "--kafka-config", paramLabel = "FILE",
            description = "With --kafka: client settings as Java properties (security.protocol, sasl.mechanism, sasl.jaas.config, ssl.*), for this"
                    + " command and, in their environment, every service.")
    Path kafkaConfig;

    @Option(names = "--db", paramLabel = "JDBC_URL", description = "Use this PostgreSQL database instead of the machine's (with --db-user, --db-password).")
    String db;

    @Option(names = "--db-user", defaultValue = "alice", description = "User for --db (default: ${DEFAULT-VALUE}).")
    String dbUser;

    @Option(names = "--db-password", defaultValue = "alice", description = "Password for --db.")
    String dbPassword;

    @Mixin
    RunSettings run;

    @Mixin
    TaskOptions taskOptions;

    /** The built-in model after imitation, shipped with the suite: RL starts from it unless told otherwise. */
    static final String BUNDLED_WARM_START = "examples/tiny-swe/warm-start";
    /** Written in the state folder once RL has begun: a later run goes on with RL and never imitates again. */
    static final String WARM_START_DONE = "warm-start.done";

    @Option(names = "--warm-start-steps", defaultValue = "1000", description = "Supervised steps on oracle trajectories before RL (first run"
            + " only): from scratch, or on top of --init-checkpoint. Without this option or --init-checkpoint, RL starts from the bundled warm"
            + " start (" + BUNDLED_WARM_START + ").")
    int warmStartSteps;

    @Mixin
    ModelOptions modelOptions;

    @Option(names = "--probe-every", defaultValue = "5", description = "Held-out pass@1 probe every N trainer steps.")
    int probeEvery;

    @Option(names = "--probe-k", defaultValue = "2", description = "Rollouts per held-out task in a probe.")
    int probeK;

    @Override
    public Integer call() throws Exception {
        try (var ctrlC = CtrlC.install(spec.commandLine().getErr())) {
            try {
                return train(ctrlC);
            } catch (Exception e) {
                if (!ctrlC.requested()) {
                    throw e;
                }
                // what Ctrl-C interrupted (a start, a build) says no more than that it stopped
                spec.commandLine().getErr().println("[train] stopped (Ctrl-C)");
                spec.commandLine().getErr().flush();
                return CtrlC.EXIT;
            }
        }
    }

    private int train(CtrlC ctrlC) throws Exception {
        PrintWriter out = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        Path root = Path.of(System.getProperty("alice.root", ".")).toAbsolutePath().normalize();
        state = (state != null ? state : root.resolve(".alice-rl/train")).toAbsolutePath();
        String bad = badOptions();
        if (bad != null) {
            err.println(bad);
            return 2;
        }
        chooseStart(root, out);
        if (run.oracleRl != null && probeEvery > 0) {
            out.println("[train] --oracle-rl: no held-out probes (the oracle knows only the training tasks)");
            probeEvery = 0;
        }
        if (run.sandbox.equals("local") && !onPath("bwrap") && !installSandboxTools(root, out)) {
            err.println("bubblewrap (bwrap) is missing and could not be installed (see above): as root run `dev/stack install`"
                    + " (or `apt-get install -y bubblewrap`), or use --sandbox kubernetes");
            return 2;
        }
        if (!buildIfStale(root, out, err)) {
            return ctrlC.requested() ? CtrlC.EXIT : 3;
        }
        Files.createDirectories(state);
        String unreachable = run.sandbox.equals("local") ? unreachableBySandboxes(state) : null;
        if (unreachable != null) {
            err.println(unreachable);
            return 2;
        }
        Path suite = state.resolve("suite");
        TaskSuite.Prepared prepared;
        try {
            prepared = TaskSuite.prepare(suite, taskOptions.tasks, spec.commandLine().getParseResult().hasMatchedOption("--tasks"),
                    taskOptions.heldout, taskOptions.seed, (warmStartSteps > 0 && !Files.exists(state.resolve(WARM_START_DONE))) || run.oracleRl != null,
                    run.sandbox.equals("local"), taskOptions.folders.mirrors);
        } catch (TaskSuite.Refused e) {
            err.println(e.getMessage());
            return 2;
        }
        if (prepared.message() != null) {
            out.println("[train] " + prepared.message());
        }
        if (prepared.heldOut() == 0 && probeEvery > 0) {
            out.println("[train] no held-out tasks: no held-out probes");
            probeEvery = 0;
        }
        try (var infra = new Infra(root, state, out)) {
            infra.kafkaClient = KafkaClientConfig.load(kafkaConfig);
            infra.start(kafka, db, dbUser, dbPassword);
            Files.writeString(state.resolve("infra.json"), EventCodec.mapper().createObjectNode().put("jdbcUrl", infra.jdbcUrl).put("user", infra.user)
                    .put("password", infra.password).put("kafka", infra.bootstrap).toString());
            var services = new Services(root, state, infra, new EmbeddedConfig(run, modelOptions.given() ? modelOptions : null, taskOptions, state,
                    prepared.train()));
            var onCtrlC = new Thread(() -> {
                try {
                    services.close();
                    infra.close();
                } catch (Exception e) {
                    System.err.println("[train] stopping: " + e.getMessage());
                }
            }, "alice-rl-train-stop");
            Runtime.getRuntime().addShutdownHook(onCtrlC);
            var tracked = run.mlflow == null ? TrackedRun.none() : TrackedRun.of(run.mlflow, params(prepared));
            try (services) {
                runPhases(services, infra, suite, prepared.dataset(), tracked, out);
            } catch (Exception e) {
                if (!ctrlC.requested()) {
                    tracked.finish(null, "FAILED");
                    throw e;
                }
            }
            Runtime.getRuntime().removeShutdownHook(onCtrlC);
            out.println("[train] writing the report");
            out.flush();
            var report = Report.write(state);
            out.printf("[train] report: %s%n", report);
            // after the trainer stopped (it marks the run KILLED when it stops)
            tracked.finish(report.getParent(), ctrlC.requested() ? "KILLED" : "FINISHED");
            if (tracked.link() != null) {
                out.printf("[train] MLflow: %s%n", tracked.link());
            }
        }
        out.flush();
        return ctrlC.requested() ? CtrlC.EXIT : 0;
    }

    /** The run's settings as {@code --mlflow} records them. */
    private Map<String, String> params(TaskSuite.Prepared prepared) {
        var p = new LinkedHashMap<String, String>();
        p.put("state", state.toString());
        p.put("tasks", prepared.dataset() + " (" + prepared.train() + " train, " + prepared.heldOut() + " held out)");
        p.put("group_size", Integer.toString(run.groupSize));
        p.put("sandbox", run.sandbox);
        p.put("sampler", modelOptions.given() ? modelOptions.sampler : "inference");
        p.put("steps", Long.toString(steps));
        p.put("minutes", Long.toString(minutes));
        p.put("final_eval", finalEval);
        p.put("warm_start_steps", Long.toString(warmStartSteps));
        p.put("probe_every", Integer.toString(probeEvery));
        p.put("probe_k", Integer.toString(probeK));
        p.put("sync", Boolean.toString(run.sync));
        return p;
    }

    /** The warm start when one is due, then RL until --steps or --minutes (or Ctrl-C), then a last held-out probe. */
    private void runPhases(Services services, Infra infra, Path suite, String dataset, TrackedRun tracked, PrintWriter out) throws Exception {
        boolean warm = warmStartSteps > 0 && !Files.exists(state.resolve(WARM_START_DONE));
        services.startAll(warm);
        var heldOutIds = TaskSuite.submit(infra.bootstrap, infra.kafkaClient, suite, dataset);
        var progress = new Progress(services.supervisor(), state, heldOutIds, probeK,
                new Resources(services.supervisor(), state, infra.jdbcUrl, infra.user, infra.password), tracked, out);
        progress.limit(minutes > 0 ? Instant.now().plusSeconds(60 * minutes) : null, Duration.ofMinutes(minutes), finalTasks);
        if (warm) {
            out.printf("[train] warm start: %d supervised steps on oracle trajectories%n", warmStartSteps);
            long first = progress.step();
            progress.run(first + warmStartSteps, 0, "sft");
            long done = progress.step() - first;
            Files.writeString(state.resolve(WARM_START_DONE), done >= warmStartSteps ? "step " + warmStartSteps + "\n"
                    : "step " + done + " of " + warmStartSteps + " (the --minutes limit came first)\n");
            if (done < warmStartSteps) {
                out.printf("[train] warm start cut by --minutes at %d of %d supervised steps%n", done, warmStartSteps);
            }
            services.switchToRl();
        }
        if (!Files.exists(state.resolve(WARM_START_DONE))) { // a run again goes on with RL, whatever its options
            Files.writeString(state.resolve(WARM_START_DONE), "none: RL from " + (run.initCheckpoint != null ? run.initCheckpoint
                    : modelOptions.given() ? modelOptions.model : "random weights") + "\n");
        }
        long from = progress.step();
        out.printf("[train] reinforcement learning from step %d%s%s%n", from, steps > 0 ? " for " + steps + " steps" : "",
                minutes > 0 ? " within the " + minutes + "-min limit (ending in time for the final evaluation)" : steps > 0 ? "" : " until Ctrl-C");
        progress.run(steps > 0 ? from + steps : 0, probeEvery, "rl");
        if (run.oracleRl == null) { // with the oracle's answers mixed in, a probe would measure the oracle, not the policy
            progress.finalEvaluation();
        }
    }

    /** Builds the services when their packages are missing or older than the sources; false when the build failed. */
    private static boolean buildIfStale(Path root, PrintWriter out, PrintWriter err) throws Exception {
        if (!stale(root)) {
            return true;
        }
        out.println("[train] the services' packages are missing or older than the sources: building them");
        out.flush();
        // dev/build: one progress line, Maven's whole output in the log it names
        var build = new ProcessBuilder(root.resolve("dev/build").toString(), "the services", ".alice-rl/build-services.log", "-DskipTests", "-pl",
                String.join(",", Services.ALL.stream().map(x -> "services/" + x).toList()), "-am", "package").directory(root.toFile()).inheritIO();
        if (build.start().waitFor() != 0) {
            err.println("the build failed (see above, and .alice-rl/build-services.log)");
            return false;
        }
        return true;
    }

    /** What is wrong with the options, named as the user wrote them; null when nothing is. */
    private String badOptions() {
        String problem = run.problem();
        if (problem != null) {
            return problem;
        }
        try {
            finalTasks = FinalEvaluation.parse(finalEval);
        } catch (IllegalArgumentException e) {
            return e.getMessage();
        }
        if (modelOptions.given() && "tinker".equals(modelOptions.learner) && run.initCheckpoint != null) {
            return "--learner tinker starts a new LoRA adapter over --model's weights on the engine (and resumes from its own checkpoints):"
                    + " --init-checkpoint is for --learner djl";
        }
        if (kafkaConfig != null && kafka == null) {
            return "--kafka-config is for an external broker: give --kafka too (the run's own broker is PLAINTEXT on loopback)";
        }
        if (kafkaConfig != null && !Files.isReadable(kafkaConfig)) {
            return "--kafka-config: cannot read " + kafkaConfig;
        }
        return taskOptions.problem() != null ? taskOptions.problem() : modelOptions.given() ? modelOptions.problem() : modelOptions.problemWithoutModel();
    }

    /**
     * Where RL starts: a given checkpoint (imitating first only when asked), the bundled warm start
     * on a fresh state folder of the built-in model, or — for a pretrained model — its own weights,
     * with no imitation unless asked.
     */
    private void chooseStart(Path root, PrintWriter out) {
        boolean imitationAsked = spec.commandLine().getParseResult().hasMatchedOption("--warm-start-steps");
        if (modelOptions.given() && !imitationAsked) {
            warmStartSteps = 0; // a pretrained model already writes calls; the bundled warm start is the built-in model's
        }
        Path bundled = root.resolve(BUNDLED_WARM_START);
        if (run.initCheckpoint == null && !imitationAsked && run.oracleRl == null && !modelOptions.given() && fresh(state)
                && Files.isRegularFile(bundled.resolve("manifest.json"))) {
            run.initCheckpoint = bundled;
            out.println("[train] RL starts from the bundled warm start (" + BUNDLED_WARM_START + ", used only while the trainer has no checkpoint"
                    + " of its own); --warm-start-steps N imitates from scratch instead");
        }
        if (run.initCheckpoint != null && !imitationAsked) {
            warmStartSteps = 0;
        }
    }

    /** True when a service package is missing or older than a source or pom of the libraries and services. */
    static boolean stale(Path root) throws IOException {
        long oldest = Long.MAX_VALUE;
        for (String s : Services.ALL) {
            Path jar = Supervisor.app(root, s);
            if (!Files.exists(jar)) {
                return true;
            }
            oldest = Math.min(oldest, Files.getLastModifiedTime(jar).toMillis());
        }
        if (Files.getLastModifiedTime(root.resolve("pom.xml")).toMillis() > oldest) {
            return true;
        }
        for (String top : List.of("libs", "services")) {
            try (var walk = Files.walk(root.resolve(top))) {
                long limit = oldest;
                if (walk.filter(p -> !p.toString().contains("/target/") && Files.isRegularFile(p))
                        .filter(p -> p.toString().contains("/src/main/") || p.getFileName().toString().equals("pom.xml"))
                        .anyMatch(p -> p.toFile().lastModified() > limit)) {
                    return true;
                }
            }
        }
        return false;
    }

    /** The local sandboxes run as unprivileged uids: every folder above their roots (in the state folder) must be o+x. */
    static String unreachableBySandboxes(Path state) throws IOException {
        var blocked = LocalSandboxProvider.untraversable(state);
        if (blocked.isEmpty()) {
            return null;
        }
        Path d = blocked.get();
        return "the state folder " + state + " is not reachable by the sandboxes' unprivileged users: " + d + " has mode "
                + PosixFilePermissions.toString(Files.getPosixFilePermissions(d)) + " (needs o+x: chmod o+x " + d
                + ", or choose another --state)";
    }

    /**
     * A fresh machine lacks bubblewrap: {@code dev/stack install --system} installs it as root, or
     * names the command to run (the Debian packages alone: the tests' Python environment is not the run's).
     */
    private static boolean installSandboxTools(Path root, PrintWriter out) throws Exception {
        out.println("[train] bubblewrap (bwrap) is missing: dev/stack install --system ...");
        out.flush();
        int exit = new ProcessBuilder(root.resolve("dev/stack").toString(), "install", "--system").inheritIO().start().waitFor();
        return exit == 0 && onPath("bwrap");
    }

    private static boolean onPath(String exe) {
        for (String dir : System.getenv().getOrDefault("PATH", "").split(":")) {
            if (Files.isExecutable(Path.of(dir, exe))) {
                return true;
            }
        }
        return false;
    }

    /** A state folder no run has trained in yet: no checkpoint, no warm start begun or done. */
    static boolean fresh(Path state) {
        if (Files.exists(state.resolve(WARM_START_DONE))) {
            return false;
        }
        try (var dirs = Files.list(state.resolve("checkpoints"))) {
            return dirs.findAny().isEmpty();
        } catch (NoSuchFileException e) {
            return true;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
