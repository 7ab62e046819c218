package ai.openalice.rl.runner.service;

import ai.openalice.rl.runner.config.RunnerConfig;
import ai.openalice.rl.sandbox.SandboxProvider;
import ai.openalice.rl.sandbox.kubernetes.KubernetesSandboxConfig;
import ai.openalice.rl.sandbox.kubernetes.KubernetesSandboxProvider;
import ai.openalice.rl.sandbox.local.LocalSandboxConfig;
import ai.openalice.rl.sandbox.local.LocalSandboxProvider;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.nio.file.Path;
import java.util.function.Supplier;
import org.jboss.logging.Logger;

/**
 * Opens the sandbox backend the runner is configured for: {@code local} (bubblewrap on this host, the embedded default)
 * or {@code kubernetes} (one pod per episode in {@code runner.kubernetes-namespace}, the production path).
 */
public final class SandboxBackends {
    private static final Logger LOG = Logger.getLogger(SandboxBackends.class);

    private SandboxBackends() {
    }

    /**
     * @param backend {@code local} or {@code kubernetes} (the config mapping refuses anything else, naming both)
     * @param root where local sandboxes live, and where the Kubernetes backend packs its workspace templates
     * @param kubernetes the Kubernetes backend's settings, made (and validated) only for {@code kubernetes}
     * @param client the API client, created only for {@code kubernetes} (in-cluster service account or kubeconfig)
     */
    public static SandboxProvider open(RunnerConfig.SandboxBackend backend, Path root, Supplier<KubernetesSandboxConfig> kubernetes, Supplier<KubernetesClient> client) {
        return switch (backend) {
            case LOCAL -> new LocalSandboxProvider(LocalSandboxConfig.defaults().withRoot(root));
            case KUBERNETES -> {
                var settings = kubernetes.get();
                var provider = new KubernetesSandboxProvider(client.get(), settings, root.resolve("kubernetes-templates"));
                LOG.infof("sandboxes: Kubernetes pods in namespace %s (image %s, warm pool %d)", settings.namespace(),
                        settings.baseImage(), settings.warmPoolSize());
                yield provider;
            }
        };
    }

    /** Starts the warm pool in the background, so start-up does not wait for pods; a failure is logged, episodes start cold. */
    public static void warmUp(SandboxProvider provider) {
        if (provider instanceof KubernetesSandboxProvider k) {
            Thread.ofVirtual().name("sandbox-warm-pool").start(() -> {
                try {
                    k.fillWarmPool();
                } catch (RuntimeException e) {
                    LOG.warnf("could not fill the sandbox warm pool (episodes start cold pods): %s", e.getMessage());
                }
            });
        }
    }
}
