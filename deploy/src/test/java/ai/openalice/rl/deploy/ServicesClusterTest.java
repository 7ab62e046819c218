package ai.openalice.rl.deploy;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.ServiceBuilder;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;

/**
 * What the chart's Services need of the cluster {@code dev/stack cluster up} makes (issue 58): a
 * Service's name resolves in the cluster DNS, its ClusterIP reaches the pod behind it (kube-proxy),
 * the API server is reached through the {@code kubernetes} Service, and a name outside the cluster does not resolve (nothing a pod asks leaves the machine). Skipped
 * without {@code -Dalice.kubeconfig}; {@code dev/test} runs it with the cluster suite.
 */
@EnabledIfSystemProperty(named = "alice.kubeconfig", matches = ".+")
class ServicesClusterTest {
    static final String NS = "alice-services-" + UUID.randomUUID().toString().substring(0, 8);
    static final String IMAGE = System.getProperty("alice.sandbox-image", "alice-rl.local/sandbox:bookworm");
    static KubernetesClient client;

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

    private static Pod pod(String name, Map<String, String> labels, String script) {
        return new PodBuilder().withNewMetadata().withName(name).withLabels(labels).endMetadata().withNewSpec().withRestartPolicy("Never")
                .withTerminationGracePeriodSeconds(0L).addNewContainer().withName("main").withImage(IMAGE).withImagePullPolicy("Never")
                .withCommand("sh", "-c", script).endContainer().endSpec().build();
    }

    /** Runs a pod to its end and returns its phase and log. */
    private static String ran(String name, String script) {
        client.pods().inNamespace(NS).resource(pod(name, Map.of(), script)).create();
        var done = client.pods().inNamespace(NS).withName(name)
                .waitUntilCondition(p -> p != null && List.of("Succeeded", "Failed").contains(p.getStatus().getPhase()), 2, TimeUnit.MINUTES);
        return done.getStatus().getPhase() + "\n" + client.pods().inNamespace(NS).withName(name).getLog();
    }

    @Test
    void aServiceNameReachesItsPodThroughTheClusterIpAndOutsideNamesDoNotResolve() {
        client.pods().inNamespace(NS).resource(pod("web", Map.of("app", "web"),
                "mkdir -p /tmp/site && echo served-by-web > /tmp/site/hello.txt && cd /tmp/site && exec python3 -m http.server 8080")).create();
        client.services().inNamespace(NS).resource(new ServiceBuilder().withNewMetadata().withName("web").endMetadata().withNewSpec()
                .withSelector(Map.of("app", "web")).addNewPort().withPort(80).withNewTargetPort(8080).endPort().endSpec().build()).create();
        client.pods().inNamespace(NS).withName("web").waitUntilReady(2, TimeUnit.MINUTES);
        String clusterIp = client.services().inNamespace(NS).withName("web").get().getSpec().getClusterIP();
        String script = """
                python3 - <<'PY'
                import socket, time, urllib.request
                for i in range(60):  # until the endpoints reach kube-proxy's rules and the server listens
                    try:
                        body = urllib.request.urlopen('http://web/hello.txt', timeout=2).read().decode().strip()
                        break
                    except OSError:
                        time.sleep(1)
                print(body)
                print(socket.gethostbyname('web.%s.svc.cluster.local'))
                socket.create_connection(('kubernetes.default.svc', 443), timeout=5).close()
                print('api server reached')
                try:
                    print(socket.gethostbyname('example.com'))
                except OSError:
                    print('example.com: no answer')
                PY
                """.formatted(NS);
        assertEquals("Succeeded\nserved-by-web\n" + clusterIp + "\napi server reached\nexample.com: no answer\n", ran("client", script));
    }
}
