package ai.openalice.rl.sandbox.kubernetes;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ai.openalice.rl.sandbox.ExecResult;
import ai.openalice.rl.sandbox.Sandbox;
import ai.openalice.rl.sandbox.SandboxException;
import ai.openalice.rl.sandbox.SandboxLimits;
import ai.openalice.rl.sandbox.SandboxSpec;
import ai.openalice.rl.sandbox.WorkspaceSource;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;
import org.junit.jupiter.api.io.TempDir;

/**
 * The Kubernetes back end against a real cluster ({@code dev/stack cluster up}, its kubeconfig in
 * {@code -Dalice.kubeconfig}; the sandbox image the cluster's build made, or {@code -Dalice.sandbox-image}): real pods,
 * the real exec stream, a real kubelet's memory limit, a real pod deleted. Without the property it
 * is skipped: {@code dev/test} runs it after the other tests, on the cluster it brings up (issue 58).
 * Each case is one that {@link KubernetesSandboxTest} plays against fabric8's mock.
 */
@EnabledIfSystemProperty(named = "alice.kubeconfig", matches = ".+")
class KubernetesClusterTest {
    static final String NS = "alice-sandboxes-" + UUID.randomUUID().toString().substring(0, 8);
    static KubernetesClient client;

    @TempDir
    Path tmp;

    @BeforeAll
    static void connect() throws Exception {
        client = new KubernetesClientBuilder().withConfig(Config.fromKubeconfig(Files.readString(Path.of(System.getProperty("alice.kubeconfig")))))
                .build();
        client.namespaces().resource(new NamespaceBuilder().withNewMetadata().withName(NS).endMetadata().build()).create();
    }

    @AfterAll
    static void disconnect() {
        if (client != null) {
            client.namespaces().withName(NS).delete();
            client.close();
        }
    }

    private static KubernetesSandboxConfig config(String runner) {
        var d = KubernetesSandboxConfig.defaults(NS, runner);
        return new KubernetesSandboxConfig(NS, System.getProperty("alice.sandbox-image", "alice-rl.local/sandbox:bookworm"), d.workdir(), runner, 0, Duration.ofMinutes(1),
                d.activeDeadline(), "500m");
    }

    @Test
    void aPodStartsTheWorkspaceGoesInCommandsRunAndCloseDeletesIt() throws Exception {
        Path ws = Files.createDirectories(tmp.resolve("ws"));
        Files.writeString(ws.resolve("calc.py"), "print(1 + 1)\n");
        try (var provider = new KubernetesSandboxProvider(client, config("real-a"), tmp.resolve("templates"))) {
            String pod;
            try (Sandbox s = provider.create(SandboxSpec.of(new WorkspaceSource.Dir(ws)))) {
                ExecResult r = s.exec("python3 calc.py && pwd && id -u", Duration.ofSeconds(30));
                assertEquals(0, r.exitCode(), r.toString());
                assertEquals("2\n/workspace\n1000\n", r.stdout());
                assertEquals(0, s.exec("echo kept > /tmp/note && echo edited >> calc.py", Duration.ofSeconds(30)).exitCode());
                assertEquals("kept\n2\n", s.exec("cat /tmp/note; grep -c . calc.py", Duration.ofSeconds(30)).stdout(),
                        "what a command leaves, the next one sees");
                assertTrue(s.diff().contains("+edited"), "the episode's patch: git in the pod takes the uploaded workspace as its repository");
                s.writeFile("pkg/new.py", "print('written')\n");
                s.writeFile("empty.txt", "");
                assertEquals("print('written')\n", s.readFile("pkg/new.py"), "files in and out");
                assertEquals("written\n0\n", s.exec("python3 pkg/new.py; wc -c < empty.txt", Duration.ofSeconds(30)).stdout());
                ExecResult failed = s.exec("echo out; echo err >&2; exit 3", Duration.ofSeconds(30));
                assertEquals(3, failed.exitCode());
                assertEquals("out\n", failed.stdout());
                assertEquals("err\n", failed.stderr());
                pod = client.pods().inNamespace(NS).withLabel(SandboxLabels.OWNER, "real-a").list().getItems().getFirst().getMetadata().getName();
            }
            client.pods().inNamespace(NS).withName(pod).waitUntilCondition(p -> p == null, 60, TimeUnit.SECONDS);
            assertNull(client.pods().inNamespace(NS).withName(pod).get(), "close deletes the pod");
        }
    }

    @Test
    void aCommandPastItsTimeIsStoppedAndTheShellGoesOn() throws Exception {
        try (var provider = new KubernetesSandboxProvider(client, config("real-b"), tmp.resolve("templates"));
                Sandbox s = provider.create(SandboxSpec.of(new WorkspaceSource.Empty()))) {
            ExecResult slow = s.exec("echo started; sleep 30", Duration.ofSeconds(2));
            assertTrue(slow.timedOut(), slow.toString());
            assertEquals("after\n", s.exec("echo after", Duration.ofSeconds(30)).stdout());
        }
    }

    /**
     * On this machine's cgroup v1 the kernel kills the process that went over, not the container:
     * the pod is never OOMKilled, and only the cgroup's oom_kill count tells a memory limit from a
     * plain SIGKILL.
     */
    @Test
    void memoryPastTheLimitIsLimitExceededAndAPlainKillIsNot() throws Exception {
        var d = SandboxLimits.defaults();
        var limits = new SandboxLimits(d.cpuSeconds(), d.addressSpaceBytes(), 64 * SandboxLimits.MiB, d.fileSizeBytes(), d.workspaceBytes(),
                d.openFiles(), d.processes(), d.outputBytes());
        try (var provider = new KubernetesSandboxProvider(client, config("real-c"), tmp.resolve("templates"));
                Sandbox s = provider.create(SandboxSpec.of(new WorkspaceSource.Empty()).withLimits(limits))) {
            assertEquals(137, s.exec("sh -c 'kill -9 $$'", Duration.ofSeconds(30)).exitCode(), "a SIGKILL of its own is the command's exit status");
            var e = assertThrows(SandboxException.class,
                    () -> s.exec("python3 -c 'x = bytearray(512 * 1024 * 1024); print(len(x))'", Duration.ofSeconds(60)));
            assertEquals(SandboxException.Reason.LIMIT_EXCEEDED, e.reason(), e.getMessage());
        }
    }

    @Test
    void aPodDeletedUnderTheEpisodeIsSandboxDied() throws Exception {
        try (var provider = new KubernetesSandboxProvider(client, config("real-d"), tmp.resolve("templates"));
                Sandbox s = provider.create(SandboxSpec.of(new WorkspaceSource.Empty()))) {
            assertEquals("up\n", s.exec("echo up", Duration.ofSeconds(30)).stdout());
            client.pods().inNamespace(NS).withLabel(SandboxLabels.OWNER, "real-d").withGracePeriod(0).delete();
            var e = assertThrows(SandboxException.class, () -> s.exec("sleep 5; echo still", Duration.ofSeconds(30)));
            assertEquals(SandboxException.Reason.SANDBOX_DIED, e.reason(), e.getMessage());
        }
    }

    /** After a death the provider starts a fresh pod for the episode's free retry, and it runs. */
    @Test
    void afterADeathTheNextSandboxOfTheProviderRuns() throws Exception {
        try (var provider = new KubernetesSandboxProvider(client, config("real-e"), tmp.resolve("templates"))) {
            Sandbox first = provider.create(SandboxSpec.of(new WorkspaceSource.Empty()));
            client.pods().inNamespace(NS).withName(((KubernetesSandbox) first).podName()).withGracePeriod(0).delete();
            assertEquals(SandboxException.Reason.SANDBOX_DIED,
                    assertThrows(SandboxException.class, () -> first.exec("sleep 5", Duration.ofSeconds(30))).reason());
            first.close();
            try (Sandbox again = provider.create(SandboxSpec.of(new WorkspaceSource.Empty()))) {
                assertEquals("again\n", again.exec("echo again", Duration.ofSeconds(30)).stdout());
            }
        }
    }

    /** The real API server validates and stores the policy; nothing here enforces it (no policy-enforcing network plugin). */
    @Test
    void theDenyAllNetworkPolicyIsStored() {
        new KubernetesSandboxProvider(client, config("real-f"), tmp.resolve("templates")).close();
        var np = client.network().v1().networkPolicies().inNamespace(NS).withName(SandboxLabels.NETWORK_POLICY).get();
        assertNotNull(np);
        assertEquals(Map.of(SandboxLabels.ROLE, SandboxLabels.ROLE_SANDBOX), np.getSpec().getPodSelector().getMatchLabels());
        assertEquals(List.of("Ingress", "Egress"), np.getSpec().getPolicyTypes());
    }

    /** A real kubelet runs the warm pods as their spec says: uid 1000, no capabilities, a read-only root, no token. */
    @Test
    void warmPodsRunLockedDownAndCloseDeletesThePool() throws Exception {
        try (var provider = new KubernetesSandboxProvider(client, config("real-g").withWarmPoolSize(2), tmp.resolve("templates"))) {
            provider.fillWarmPool();
            assertEquals(2, pods("real-g").size());
            try (Sandbox s = provider.create(SandboxSpec.of(new WorkspaceSource.Empty()))) {
                String script = "id -u; grep CapEff /proc/self/status; touch /etc/x 2>/dev/null || echo read-only;"
                        + " ls /var/run/secrets/kubernetes.io 2>/dev/null || echo no-token; touch /workspace/w /tmp/t && echo writable";
                assertEquals("1000\nCapEff:\t0000000000000000\nread-only\nno-token\nwritable\n", s.exec(script, Duration.ofSeconds(30)).stdout());
            }
        }
        waitForNoPods("real-g");
    }

    @Test
    void theReaperDeletesThisRunnersOrphansAndNotAnotherRunnersPods() throws Exception {
        var limits = SandboxLimits.defaults();
        client.pods().inNamespace(NS).resource(PodSpecs.sandboxPod(config("real-h"), "orphan-h", "orphan-h", null, "/workspace", limits, Map.of(),
                SandboxLabels.STATE_LEASED)).create();
        client.pods().inNamespace(NS).resource(PodSpecs.sandboxPod(config("real-i"), "alive-i", "alive-i", null, "/workspace", limits, Map.of(),
                SandboxLabels.STATE_LEASED)).create();
        new KubernetesSandboxProvider(client, config("real-h"), tmp.resolve("templates")).close();
        waitForNoPods("real-h");
        assertEquals(List.of("alive-i"), pods("real-i").stream().map(p -> p.getMetadata().getName()).toList());
        client.pods().inNamespace(NS).withName("alive-i").withGracePeriod(0).delete();
    }

    /** A task's own image: its workdir's files are there (no emptyDir over them) and its root is writable. */
    @Test
    void aTasksImageRunsWithItsOwnWorkdirAndAWritableRoot() throws Exception {
        String image = System.getProperty("alice.sandbox-image", "alice-rl.local/sandbox:bookworm");
        try (var provider = new KubernetesSandboxProvider(client, config("real-j"), tmp.resolve("templates"));
                Sandbox s = provider.create(SandboxSpec.of(new WorkspaceSource.Image(image, "/home/sandbox")))) {
            assertEquals("/home/sandbox\n.bashrc\nwritable\n",
                    s.exec("pwd; ls -a | grep -x .bashrc; touch /var/tmp/x && echo writable", Duration.ofSeconds(30)).stdout());
        }
    }

    private static List<Pod> pods(String runner) {
        return client.pods().inNamespace(NS).withLabel(SandboxLabels.OWNER, runner).list().getItems();
    }

    private static void waitForNoPods(String runner) throws InterruptedException {
        for (int i = 0; i < 120 && !pods(runner).isEmpty(); i++) {
            Thread.sleep(500);
        }
        assertEquals(List.of(), pods(runner).stream().map(p -> p.getMetadata().getName()).toList(), "nothing of " + runner + " left");
    }
}
