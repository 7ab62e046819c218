package ai.openalice.rl.runner.service;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ai.openalice.rl.runner.config.RunnerConfig;
import ai.openalice.rl.sandbox.kubernetes.KubernetesSandboxConfig;
import ai.openalice.rl.sandbox.kubernetes.SandboxLabels;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.EnableKubernetesMockClient;
import io.smallrye.config.PropertiesConfigSource;
import io.smallrye.config.SmallRyeConfigBuilder;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The runner's backend switch: the Kubernetes path is the real provider against the (mock) API server. */
@EnableKubernetesMockClient(crud = true)
class SandboxBackendsTest {
    static final String NS = "sandboxes-under-test";

    KubernetesClient client;

    @TempDir
    Path root;

    @Test
    void kubernetesBackendAppliesTheDenyAllPolicyAndReapsThisRunnersLeftovers() {
        // A pod left by an earlier life of this runner, and one of another runner's.
        client.pods().inNamespace(NS).resource(pod("old-episode", "runner-7")).create();
        client.pods().inNamespace(NS).resource(pod("neighbour", "runner-8")).create();

        try (var provider = SandboxBackends.open(RunnerConfig.SandboxBackend.KUBERNETES, root, () -> KubernetesSandboxConfig.defaults(NS, "runner-7"), () -> client)) {
            assertEquals("kubernetes", provider.name());
            var policies = client.network().v1().networkPolicies().inNamespace(NS).list().getItems();
            assertEquals(1, policies.size(), "one deny-all NetworkPolicy for the sandbox namespace");
            assertEquals(List.of("neighbour"),
                    client.pods().inNamespace(NS).list().getItems().stream().map(p -> p.getMetadata().getName()).toList());
        }
    }

    @Test
    void localBackendNeverTouchesTheKubernetesApi() {
        try (var provider = SandboxBackends.open(RunnerConfig.SandboxBackend.LOCAL, root, () -> {
            throw new AssertionError("the local backend must not need Kubernetes settings");
        }, () -> {
            throw new AssertionError("the local backend must not create a Kubernetes client");
        })) {
            assertEquals("local", provider.name());
        }
    }

    /** A closed choice is an enum in the config mapping: a typo stops start-up naming the key, the value and the allowed values. */
    @Test
    void anUnknownBackendOrCallFormatIsRefusedWithTheAllowedValues() {
        var bad = Map.of("runner.sandbox-backend", List.of("docker", "local", "kubernetes"), "runner.tool-call-format", List.of("jsn", "compact", "json"),
                "runner.policy", List.of("orcale", "http", "oracle", "random"));
        for (var b : bad.entrySet()) {
            var e = assertThrows(RuntimeException.class, () -> new SmallRyeConfigBuilder().withMapping(RunnerConfig.class)
                    .withSources(new PropertiesConfigSource(Map.of(b.getKey(), b.getValue().getFirst()), "test", 500)).build());
            String message = e.getMessage();
            for (String part : b.getValue()) {
                assertTrue(message.contains(part), b.getKey() + ": " + message);
            }
            assertTrue(message.contains(b.getKey()), message);
        }
    }

    private static Pod pod(String name, String owner) {
        return new PodBuilder().withNewMetadata().withName(name)
                .withLabels(Map.of(SandboxLabels.ROLE, SandboxLabels.ROLE_SANDBOX, SandboxLabels.OWNER, owner)).endMetadata().build();
    }
}
