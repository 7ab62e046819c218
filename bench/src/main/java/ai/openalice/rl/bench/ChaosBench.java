package ai.openalice.rl.bench;

import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Timestamp;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The whole loop under faults: {@code ./alice-rl train} in its default configuration (the model
 * generating, served by the inference service); once it trains, each service is SIGKILLed in turn
 * (the run's supervisor restarts it, as Kubernetes would), then the Kafka broker is stopped (the run
 * starts it again), then PostgreSQL is restarted, then the broker is SIGKILLed and left to the run to
 * bring back (two more steps after); after each fault the bench waits for the trainer to commit a newer checkpoint — the
 * loop advanced — and times it. Then {@link LoopAudit} over the databases and checkpoints.published,
 * and the rollouts that failed or were retried, by reason: an outage that spends attempts shows up
 * there. The run's own steady pace before the first fault is the baseline for the recovery times.
 */
final class ChaosBench {
    private ChaosBench() {}

    static final List<String> SERVICES = List.of("inference", "sandbox-runner", "verifier", "rubric-prm", "task-dispatcher", "trainer");
    static final Duration ADVANCE = Duration.ofMinutes(10);

    record Fault(String what, long versionBefore, double secondsToAdvance) {}

    static void run(String[] args) throws Exception {
        Path root = TrainRuns.root();
        Path base = TrainRuns.base("alice-chaos-bench");
        Path state = base.resolve("state");
        Path log = base.resolve("train.log");
        var cmd = List.of(root.resolve("alice-rl").toString(), "train", "--state", state.toString(), "--minutes", "120", "--probe-every", "0");
        System.out.printf("chaos: %s (log %s)%n", String.join(" ", cmd), log);
        Process train = new ProcessBuilder(cmd).directory(root.toFile()).redirectErrorStream(true).redirectOutput(log.toFile()).start();
        try {
            LoopAudit audit = awaitInfra(state, train, log);
            long v0 = awaitAdvance(audit, awaitVersion(audit, train) + 1, train, Duration.ofMinutes(20)); // it trains
            long t0 = System.nanoTime();
            long v1 = awaitAdvance(audit, v0 + 2, train, Duration.ofMinutes(15)); // the pace before any fault: two versions or more
            double baseline = (System.nanoTime() - t0) / 1e9 / (v1 - v0);
            System.out.printf("  training: v%d -> v%d, %.1f s per version before any fault (baseline)%n", v0, v1, baseline);
            var faults = new ArrayList<Fault>();
            for (String s : SERVICES) {
                faults.add(fault("SIGKILL " + s, audit, train, () -> kill(state, s)));
            }
            // the broker stopped (SIGTERM, as an operator would): the run's supervisor starts it again itself — a bench that
            // started it too would race it (dev/stack refuses a broker that is alive with its port not yet open)
            faults.add(fault("Kafka broker stop (the run starts it again)", audit, train,
                    () -> stack(root, stackEnvironment(state), "kafka-stop")));
            faults.add(fault("PostgreSQL restart", audit, train, () -> stack(root, Map.of(), "pg-restart")));
            // last: nobody restarts it but the run itself (its supervisor watches the broker it started)
            faults.add(fault("SIGKILL the Kafka broker (the run brings it back)", audit, train, () -> killBroker(state)));
            long afterKill = awaitVersion(audit, train);
            awaitAdvance(audit, afterKill + 2, train, ADVANCE); // two more steps after the broker came back
            Thread.sleep(60_000); // what was in flight at the last fault settles
            report(faults, baseline, audit, "127.0.0.1:" + Files.readString(state.resolve("kafka-port")).strip());
        } finally {
            train.destroy(); // SIGTERM: alice-rl train stops its services and broker
            train.waitFor();
        }
    }

    interface Action {
        void run() throws Exception;
    }

    /**
     * Runs the fault, then waits until the loop advanced past it: a newer checkpoint, and a sample
     * trained on that the trainer received after the fault (a rollout that finished after it, so
     * generation, verification and scoring all worked again — not only a step on what was ready).
     */
    private static Fault fault(String what, LoopAudit audit, Process train, Action action) throws Exception {
        long before = awaitVersion(audit, train);
        Timestamp at = audit.now();
        long t = System.nanoTime();
        action.run();
        awaitAdvance(audit, before + 1, train, ADVANCE);
        long deadline = System.nanoTime() + ADVANCE.toNanos();
        while (!audit.trainedSince(at)) {
            alive(train, null);
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("nothing received after the fault '" + what + "' was trained on within " + ADVANCE.toMinutes() + " min");
            }
            Thread.sleep(2000);
        }
        double s = (System.nanoTime() - t) / 1e9;
        System.out.printf("  %-28s at v%d: training advanced after %.0f s%n", what, before, s);
        return new Fault(what, before, s);
    }

    private static void report(List<Fault> faults, double baseline, LoopAudit audit, String bootstrap) throws Exception {
        System.out.printf("%nrecovery (until a newer checkpoint and a sample received after the fault trained on; baseline %.1f s per version):%n",
                baseline);
        for (Fault f : faults) {
            System.out.printf("  %-28s %6.0f s  %5.1fx baseline%n", f.what(), f.secondsToAdvance(), f.secondsToAdvance() / baseline);
        }
        System.out.println("audit:");
        var checks = new ArrayList<>(audit.database());
        int[] sameEventTwice = {0};
        checks.add(LoopAudit.checkpoints(bootstrap, "checkpoints.published", sameEventTwice));
        for (var c : checks) {
            System.out.printf("  %-4s %s%s%n", c.violations() == 0 ? "ok" : "FAIL", c.name(), c.violations() == 0 ? "" : ": " + c.violations() + " " + c.examples());
        }
        System.out.printf("  (the same checkpoint event relayed more than once: %d — at-least-once, consumers ignore repeats)%n", sameEventTwice[0]);
        System.out.println("rollouts failed (out of attempts), by reason: " + audit.endings("failed"));
        System.out.println("rollouts retried, by reason: " + audit.endings("retried"));
    }

    private static LoopAudit awaitInfra(Path state, Process train, Path log) throws Exception {
        Path infra = state.resolve("infra.json");
        while (!Files.exists(infra)) {
            alive(train, log);
            Thread.sleep(2000);
        }
        return LoopAudit.of(state);
    }

    /** The trainer's newest version; waits while the database is away. */
    private static long awaitVersion(LoopAudit audit, Process train) throws Exception {
        while (true) {
            Long v = audit.latestVersion();
            if (v != null) {
                return v;
            }
            alive(train, null);
            Thread.sleep(2000);
        }
    }

    private static long awaitAdvance(LoopAudit audit, long atLeast, Process train, Duration wait) throws Exception {
        long deadline = System.nanoTime() + wait.toNanos();
        while (System.nanoTime() < deadline) {
            Long v = audit.latestVersion();
            if (v != null && v >= atLeast) {
                return v;
            }
            alive(train, null);
            Thread.sleep(2000);
        }
        throw new IllegalStateException("training did not reach version " + atLeast + " within " + wait.toMinutes() + " min");
    }

    private static void alive(Process train, Path log) {
        if (!train.isAlive()) {
            throw new IllegalStateException("alice-rl train exited with " + train.exitValue() + (log == null ? "" : "; see " + log));
        }
    }

    /** SIGKILL to the service's JVM, found by the copy of its app the supervisor runs from ({@code <state>/apps/<service>}). */
    private static void kill(Path state, String service) {
        String jar = state.resolve("apps").resolve(service).resolve("quarkus-run.jar").toString();
        var p = ProcessHandle.allProcesses().filter(h -> h.info().commandLine().orElse("").contains(jar)).findFirst()
                .orElseThrow(() -> new IllegalStateException("no process runs " + jar));
        p.destroyForcibly(); // SIGKILL
    }

    private static void killBroker(Path state) throws Exception {
        long pid = Long.parseLong(Files.readString(state.resolve("stack/kafka/kafka.pid")).strip());
        ProcessHandle.of(pid).orElseThrow(() -> new IllegalStateException("no broker process " + pid)).destroyForcibly(); // SIGKILL
    }

    /** dev/stack's settings for the run's own broker (its folder and ports in the state folder). */
    private static Map<String, String> stackEnvironment(Path state) throws Exception {
        int port = Integer.parseInt(Files.readString(state.resolve("kafka-port")).strip());
        return Map.of("ALICE_STACK_DIR", state.resolve("stack").toString(), "ALICE_KAFKA_PORT", Integer.toString(port),
                "ALICE_KAFKA_CONTROLLER_PORT", Integer.toString(port + 1));
    }

    private static void stack(Path root, Map<String, String> env, String command) throws Exception {
        var pb = new ProcessBuilder(root.resolve("dev/stack").toString(), command).redirectErrorStream(true);
        pb.environment().putAll(env);
        Process p = pb.start();
        String out = new String(p.getInputStream().readAllBytes());
        if (p.waitFor() != 0) {
            throw new IllegalStateException("dev/stack " + command + " failed: " + out);
        }
    }
}
