package ai.openalice.rl.bench;

import ai.openalice.rl.testkit.JsonHttp;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The loop's throughput as deployed against the embedded run, on the same machine, task and policy:
 * rollouts scored a minute by {@code ./alice-rl train} (every service in one process, local
 * sandboxes), by the chart installed on the dev cluster (six pods, sandbox pods made through the API
 * server) and by docker-compose.yml on Debian's Docker (six containers, bubblewrap sandboxes in the
 * runner's). The task is examples/tasks/calc.jsonl, the policy the scripted oracle leaving out the
 * fix half of the time, so the model's speed is out of it: what is measured is the loop's own cost
 * in each shape. Counted from the first scored rollout for MINUTES (start-up left out).
 *
 * <p>{@code bench/run deploy-loop [MINUTES]} (default 5), as root, with KUBECONFIG from {@code
 * dev/stack cluster up}, DOCKER_HOST from {@code dev/stack docker up} and the images of {@code dev/stack
 * cluster images}.
 */
final class DeployLoopBench {
    private DeployLoopBench() {}

    static final ObjectMapper JSON = new ObjectMapper();
    static final String NS = "alice-rl-bench";
    static final String ORACLE_FAILURE = "0.5";

    static void run(String[] args) throws Exception {
        int minutes = args.length > 1 ? Integer.parseInt(args[1]) : 5;
        Path root = TrainRuns.root();
        String kubeconfig = required("KUBECONFIG", "dev/stack cluster up");
        String dockerHost = required("DOCKER_HOST", "dev/stack docker up");
        System.out.printf("deploy-loop: %d minutes per shape, examples/tasks/calc.jsonl, the oracle failing %s of its episodes%n", minutes,
                ORACLE_FAILURE);
        double embedded = embedded(root, minutes);
        double compose = compose(root, dockerHost, minutes);
        double cluster = cluster(root, kubeconfig, minutes);
        System.out.printf("  %-44s: %6.1f rollouts/min%n", "baseline: embedded (./alice-rl train)", embedded);
        System.out.printf("  %-44s: %6.1f rollouts/min  (%.2fx)%n", "docker-compose.yml (bubblewrap in containers)", compose, compose / embedded);
        System.out.printf("  %-44s: %6.1f rollouts/min  (%.2fx)%n", "chart on the dev cluster (sandbox pods)", cluster, cluster / embedded);
    }

    private static String required(String variable, String from) {
        String value = System.getenv(variable);
        if (value == null || value.isBlank()) {
            throw new IllegalArgumentException(variable + " is not set: run " + from + " and export what it prints");
        }
        return value;
    }

    private static double embedded(Path root, int minutes) throws Exception {
        Path state = TrainRuns.base("alice-deploy-loop-bench");
        var cmd = List.of(root.resolve("alice-rl").toString(), "train", "--state", state.toString(), "--minutes", Integer.toString(minutes),
                "--tasks", root.resolve("examples/tasks/calc.jsonl").toString(), "--warm-start-steps", "0", "--probe-every", "0",
                "--oracle-rl", ORACLE_FAILURE);
        Path log = state.resolve("train.log");
        System.out.printf("  embedded: %s (log %s)%n", String.join(" ", cmd), log);
        var p = new ProcessBuilder(cmd).directory(root.toFile()).redirectErrorStream(true).redirectOutput(log.toFile()).start();
        if (p.waitFor() != 0) {
            throw new IllegalStateException("alice-rl train exited with " + p.exitValue() + "; see " + log);
        }
        return LoopBench.figures(Files.readAllLines(state.resolve("metrics.jsonl"))).rolloutsPerHour() / 60;
    }

    private static double compose(Path root, String dockerHost, int minutes) throws Exception {
        Path override = Files.createTempFile("deploy-loop-compose", ".yml");
        Files.writeString(override, "services:\n  sandbox-runner:\n    environment:\n" + oracleEnv(root.resolve("examples/tasks/calc.jsonl"))
                .entrySet().stream().map(e -> "      " + e.getKey() + ": \"" + e.getValue() + "\"\n").reduce("", String::concat));
        var env = Map.of("DOCKER_HOST", dockerHost, "PWD", root.toString(), "ALICE_REGISTRY", "alice-rl.local", "ALICE_TAG", "dev",
                "ALICE_KAFKA_IMAGE", "alice-rl.local/kafka:dev", "ALICE_POSTGRES_IMAGE", "alice-rl.local/postgresql:dev");
        List<String> compose = List.of("docker-compose", "-p", NS, "-f", root.resolve("docker-compose.yml").toString(), "-f", override.toString());
        System.out.println("  compose: up");
        try {
            run(root, env, concat(compose, "up", "-d", "--no-build"));
            return measure(root.resolve("examples/tasks/calc-repo").toString(), "http://127.0.0.1:8081", minutes);
        } finally {
            run(root, env, concat(compose, "down", "-v", "--remove-orphans"));
            Files.delete(override);
        }
    }

    private static double cluster(Path root, String kubeconfig, int minutes) throws Exception {
        var env = Map.of("KUBECONFIG", kubeconfig);
        String helm = Path.of(System.getProperty("alice.cluster.bin", System.getProperty("user.home") + "/.cache/alice-rl/cluster/bin"), "helm")
                .toString();
        String kubectl = Path.of(helm).resolveSibling("kubectl").toString();
        run(root, env, List.of(root.resolve("dev/stack").toString(), "cluster", "infra", NS));
        String volume = run(root, env, List.of(kubectl, "get", "pv", "alice-rl-artifacts-" + NS, "-o", "jsonpath={.spec.hostPath.path}")).strip();
        run(root, env, List.of("mkdir", "-p", volume + "/tasks"));
        run(root, env, List.of("cp", "-r", root.resolve("examples/tasks/calc-repo").toString(), root.resolve("examples/tasks/calc.jsonl").toString(),
                volume + "/tasks"));
        run(root, env, List.of("chmod", "-R", "a+rX", volume + "/tasks"));
        var install = new ArrayList<>(List.of(helm, "install", "alice-rl", root.resolve("helm/alice-rl").toString(), "-n", NS, "-f",
                root.resolve("deploy/k8s/single-node-cluster-values.yaml").toString(), "--set", "sandboxes.namespace=" + NS + "-sandboxes",
                "--wait", "--timeout", "6m"));
        oracleEnv(Path.of("/var/lib/alice-rl/artifacts/tasks/calc.jsonl"))
                .forEach((k, v) -> install.addAll(List.of("--set", "services.sandboxRunner.env." + k + "=" + v)));
        System.out.println("  cluster: helm install");
        try {
            run(root, env, install);
            String ip = run(root, env, List.of(kubectl, "get", "svc", "alice-rl-task-dispatcher", "-n", NS, "-o", "jsonpath={.spec.clusterIP}")).strip();
            return measure("/var/lib/alice-rl/artifacts/tasks/calc-repo", "http://" + ip + ":8081", minutes);
        } finally {
            run(root, env, List.of(helm, "uninstall", "alice-rl", "-n", NS, "--wait", "--ignore-not-found"));
            run(root, env, List.of(kubectl, "delete", "namespace", NS, "--wait=true"));
            run(root, env, List.of(kubectl, "delete", "pv", "alice-rl-artifacts-" + NS, "--ignore-not-found"));
        }
    }

    private static Map<String, String> oracleEnv(Path tasks) {
        return Map.of("RUNNER_POLICY", "oracle", "RUNNER_ORACLE_TASKS", tasks.toString(), "RUNNER_ORACLE_FAILURE_PROBABILITY", ORACLE_FAILURE);
    }

    /** Submits the task with its workspace at repo; rollouts scored a minute over MINUTES from the first one. */
    private static double measure(String repo, String dispatcher, int minutes) throws Exception {
        var task = (ObjectNode) JSON.readTree(Files.readAllLines(TrainRuns.root().resolve("examples/tasks/calc.jsonl")).getFirst());
        task.putObject("workspace").put("type", "dir").put("path", repo);
        long deadline = System.nanoTime() + Duration.ofMinutes(5).toNanos();
        while (true) { // the dispatcher may still be starting (compose's up -d does not wait for health)
            try {
                http("POST", dispatcher + "/tasks?source=bench", task.toString());
                break;
            } catch (IOException e) {
                if (System.nanoTime() > deadline) {
                    throw e;
                }
                Thread.sleep(2000);
            }
        }
        long first;
        while ((first = scored(dispatcher)) == 0) {
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("no rollout scored in 5 minutes: " + http("GET", dispatcher + "/stats", null));
            }
            Thread.sleep(1000);
        }
        long start = System.nanoTime();
        Thread.sleep(Duration.ofMinutes(minutes));
        long last = scored(dispatcher);
        double elapsedMinutes = (System.nanoTime() - start) / 60e9;
        System.out.printf("    %d rollouts scored in %.1f min after the first %d%n", last - first, elapsedMinutes, first);
        return (last - first) / elapsedMinutes;
    }

    private static long scored(String dispatcher) throws Exception {
        return http("GET", dispatcher + "/stats", null).at("/rollouts/scored").asLong(0);
    }

    private static JsonNode http(String method, String uri, String body) throws Exception {
        return JsonHttp.send(method, URI.create(uri), body);
    }

    private static List<String> concat(List<String> head, String... tail) {
        var out = new ArrayList<>(head);
        out.addAll(List.of(tail));
        return out;
    }

    private static String run(Path root, Map<String, String> env, List<String> command) throws Exception {
        var pb = new ProcessBuilder(command).directory(root.toFile()).redirectErrorStream(true);
        pb.environment().putAll(env);
        var p = pb.start();
        String out = new String(p.getInputStream().readAllBytes());
        if (p.waitFor() != 0) {
            throw new IllegalStateException(String.join(" ", command) + " failed:\n" + out);
        }
        return out;
    }
}
