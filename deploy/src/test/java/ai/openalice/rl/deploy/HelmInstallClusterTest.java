package ai.openalice.rl.deploy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ai.openalice.rl.testkit.JsonHttp;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import java.io.IOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.LongPredicate;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;

/**
 * The chart on a real cluster (issue 58): {@code helm install} of helm/alice-rl with
 * deploy/k8s/single-node-cluster-values.yaml on the cluster {@code dev/stack cluster up} makes, with
 * the images {@code dev/stack cluster images} built and Kafka and PostgreSQL from {@code dev/stack
 * cluster infra}. Every pod Ready (its probes true); the runner's RBAC as a real apiserver enforces
 * it; a task submitted to the dispatcher's REST door played in sandbox pods the runner creates,
 * verified, scored, a trainer step and its checkpoint served by the inference pod; {@code helm
 * upgrade} to new images with the run going on; {@code helm uninstall} leaving nothing of the
 * release (but the artifacts claim, kept on purpose). The runner's policy is the oracle, half its
 * episodes replaying the gold patch: the random built-in model never solves the task, and a group
 * whose rewards are all 0 has no gradient, so the trainer would never step. Skipped without
 * {@code -Dalice.kubeconfig} and {@code -Dalice.cluster.bin}; {@code dev/test} runs it.
 */
@EnabledIfSystemProperty(named = "alice.kubeconfig", matches = ".+")
@EnabledIfSystemProperty(named = "alice.cluster.bin", matches = ".+")
class HelmInstallClusterTest {
    static final String NS = "alice-rl-it";
    static final String SANDBOXES = NS + "-sandboxes";
    static final String RELEASE = "alice-rl";
    static final Path ROOT = Path.of("..").toAbsolutePath().normalize();
    static final Path BIN = Path.of(System.getProperty("alice.cluster.bin", "."));
    static final ObjectMapper JSON = new ObjectMapper();
    static KubernetesClient client;

    @BeforeAll
    static void connect() throws Exception {
        client = new KubernetesClientBuilder().withConfig(Config.fromKubeconfig(Files.readString(Path.of(System.getProperty("alice.kubeconfig")))))
                .build();
        run(ROOT.resolve("dev/stack").toString(), "cluster", "infra", NS);
    }

    @AfterAll
    static void disconnect() throws Exception {
        if (client != null) {
            run(BIN.resolve("helm").toString(), "uninstall", RELEASE, "-n", NS, "--wait", "--ignore-not-found");
            client.namespaces().withName(NS).delete();
            client.persistentVolumes().withName("alice-rl-artifacts-" + NS).delete();
            client.close();
        }
    }

    @Test
    void theChartInstallsRunsTheLoopUpgradesWithTheRunGoingOnAndUninstalls() throws Exception {
        String volume = client.persistentVolumes().withName("alice-rl-artifacts-" + NS).get().getSpec().getHostPath().getPath();
        copyTask(Path.of(volume, "tasks"));
        helm("install", "--set", "image.tag=dev");
        allPodsReady("dev");
        runnersRbac();

        var task = JSON.readTree(Files.readAllLines(ROOT.resolve("examples/tasks/calc.jsonl")).getFirst());
        ((ObjectNode) task).putObject("workspace").put("type", "dir")
                .put("path", "/var/lib/alice-rl/artifacts/tasks/calc-repo");
        var submitted = JsonHttp.send("POST", url("task-dispatcher", 8081, "/tasks?source=cluster-test"), task.toString());
        assertEquals(1, submitted.path("accepted").asInt(), submitted.toString());
        long served = servedVersion(v -> v >= 1, Duration.ofMinutes(10));
        var sandboxPods = client.pods().inNamespace(SANDBOXES).list().getItems();
        assertTrue(!sandboxPods.isEmpty() && sandboxPods.stream().allMatch(p -> p.getMetadata().getLabels().get("alice-rl.openalice.ai/owner").startsWith(RELEASE + "-sandbox-runner-")),
                "sandbox pods are the runner's");
        JsonNode stats = JsonHttp.send("GET", url("task-dispatcher", 8081, "/stats"), null);
        assertTrue(stats.at("/rollouts/scored").asInt() + stats.at("/groups/train.finished").asInt() > 0, stats.toString());

        run(ROOT.resolve("dev/stack").toString(), "cluster", "retag", "dev", "dev2"); // new image names, the same contents: every pod replaced
        helm("upgrade", "--set", "image.tag=dev2");
        allPodsReady("dev2");
        long after = servedVersion(v -> v > served, Duration.ofMinutes(10));
        assertTrue(after > served, "the run went on after the upgrade: v" + after + " after v" + served);

        run(BIN.resolve("helm").toString(), "uninstall", RELEASE, "-n", NS, "--wait");
        client.namespaces().withName(SANDBOXES).waitUntilCondition(n -> n == null, 3, TimeUnit.MINUTES);
        var selector = "app.kubernetes.io/instance=" + RELEASE;
        assertEquals(List.of(), names(client.pods().inNamespace(NS).withLabelSelector(selector).list().getItems().stream()
                .filter(p -> p.getMetadata().getDeletionTimestamp() == null).toList()));
        assertEquals(0, client.apps().deployments().inNamespace(NS).withLabelSelector(selector).list().getItems().size());
        assertEquals(0, client.services().inNamespace(NS).withLabelSelector(selector).list().getItems().size());
        assertEquals(0, client.configMaps().inNamespace(NS).withLabelSelector(selector).list().getItems().size());
        assertEquals(0, client.serviceAccounts().inNamespace(NS).withLabelSelector(selector).list().getItems().size());
        assertEquals(List.of(RELEASE + "-artifacts"),
                client.persistentVolumeClaims().inNamespace(NS).list().getItems().stream().map(c -> c.getMetadata().getName()).toList(),
                "the artifacts claim is kept (helm.sh/resource-policy: keep): it holds the checkpoints");
    }

    private static void helm(String verb, String... extra) throws Exception {
        var command = new ArrayList<>(List.of(BIN.resolve("helm").toString(), verb, RELEASE, ROOT.resolve("helm/alice-rl").toString(), "-n", NS,
                "-f", ROOT.resolve("deploy/k8s/single-node-cluster-values.yaml").toString(), "--set", "sandboxes.namespace=" + SANDBOXES,
                "--set", "services.sandboxRunner.env.RUNNER_POLICY=oracle",
                "--set", "services.sandboxRunner.env.RUNNER_ORACLE_TASKS=/var/lib/alice-rl/artifacts/tasks/calc.jsonl",
                "--set", "services.sandboxRunner.env.RUNNER_ORACLE_FAILURE_PROBABILITY=0.5", "--wait", "--timeout", "6m"));
        command.addAll(List.of(extra));
        run(command.toArray(String[]::new));
    }

    /** Every pod of the release runs the tag's image and is Ready: its readiness probe answers. */
    private static void allPodsReady(String tag) {
        var pods = client.pods().inNamespace(NS).withLabel("app.kubernetes.io/instance", RELEASE).list().getItems().stream()
                .filter(p -> p.getMetadata().getDeletionTimestamp() == null).toList();
        assertEquals(6, pods.size(), names(pods).toString());
        for (Pod p : pods) {
            assertTrue(p.getStatus().getConditions().stream().anyMatch(c -> c.getType().equals("Ready") && c.getStatus().equals("True")),
                    p.getMetadata().getName() + " is not Ready");
            assertTrue(p.getSpec().getContainers().getFirst().getImage().endsWith(":" + tag), p.getSpec().getContainers().getFirst().getImage());
        }
    }

    /** What the runner's ServiceAccount may do, as the real apiserver's RBAC answers {@code kubectl auth can-i}. */
    private static void runnersRbac() throws Exception {
        String as = "system:serviceaccount:" + NS + ":" + RELEASE + "-sandbox-runner";
        String[][] allowed = {{"create", "pods"}, {"delete", "pods"}, {"watch", "pods"}, {"create", "pods/exec"}, {"update", "networkpolicies"}};
        String[][] refused = {{"get", "secrets"}, {"create", "deployments"}, {"create", "pods/attach"}, {"delete", "networkpolicies"}};
        for (String[] verb : allowed) {
            assertEquals("yes", canI(as, verb[0], verb[1], SANDBOXES), String.join(" ", verb) + " in " + SANDBOXES);
        }
        for (String[] verb : refused) {
            assertEquals("no", canI(as, verb[0], verb[1], SANDBOXES), String.join(" ", verb) + " in " + SANDBOXES);
        }
        assertEquals("no", canI(as, "create", "pods", NS), "pods in the release's own namespace");
        assertEquals("no", canI(as, "list", "nodes", null), "anything cluster-wide");
    }

    private static String canI(String as, String verb, String resource, String namespace) throws Exception {
        // TYPE/NAME is a name to kubectl auth can-i: a subresource goes in --subresource
        String[] parts = resource.split("/", 2);
        var command = new ArrayList<>(List.of(BIN.resolve("kubectl").toString(), "auth", "can-i", verb, parts[0], "--as", as));
        if (parts.length == 2) {
            command.add("--subresource=" + parts[1]);
        }
        if (namespace != null) {
            command.addAll(List.of("-n", namespace));
        }
        var p = withKubeconfig(new ProcessBuilder(command)).redirectError(ProcessBuilder.Redirect.DISCARD).start(); // its answer; warnings go to stderr
        String out = new String(p.getInputStream().readAllBytes()).strip();
        p.waitFor();
        return out;
    }

    /** Waits for the inference pod to serve a policy version the predicate takes; returns it. */
    private static long servedVersion(LongPredicate wanted, Duration within) throws Exception {
        long deadline = System.nanoTime() + within.toNanos();
        long version = -1;
        while (System.nanoTime() < deadline) {
            try {
                version = JsonHttp.send("GET", url("inference", 8085, "/v1/models"), null).at("/data/0/policy_version").asLong(-1);
                if (wanted.test(version)) {
                    return version;
                }
            } catch (IOException e) {
                // a pod being replaced: asked again
            }
            Thread.sleep(5000);
        }
        throw new AssertionError("the inference pod serves v" + version + " after " + within + "; dispatcher: "
                + JsonHttp.send("GET", url("task-dispatcher", 8081, "/stats"), null));
    }

    private static URI url(String service, int port, String path) {
        String ip = client.services().inNamespace(NS).withName(RELEASE + "-" + service).get().getSpec().getClusterIP();
        return URI.create("http://" + ip + ":" + port + path);
    }


    /** The example task's repository and its file (the oracle reads the gold patch there) on the artifacts volume. */
    private static void copyTask(Path tasks) throws Exception {
        run("mkdir", "-p", tasks.toString());
        run("cp", "-r", ROOT.resolve("examples/tasks/calc-repo").toString(), ROOT.resolve("examples/tasks/calc.jsonl").toString(), tasks.toString());
        run("chmod", "-R", "a+rX", tasks.toString());
    }

    private static List<String> names(List<Pod> pods) {
        return pods.stream().map(p -> p.getMetadata().getName()).toList();
    }

    /** helm and kubectl find the cluster in KUBECONFIG, whatever the environment of the build. */
    private static ProcessBuilder withKubeconfig(ProcessBuilder pb) {
        pb.environment().put("KUBECONFIG", System.getProperty("alice.kubeconfig"));
        return pb;
    }

    private static void run(String... command) throws Exception {
        var p = withKubeconfig(new ProcessBuilder(command)).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes());
        if (p.waitFor() != 0) {
            throw new AssertionError(String.join(" ", command) + " failed:\n" + out);
        }
    }
}
