package ai.openalice.rl.sandbox.kubernetes;

import ai.openalice.rl.sandbox.SandboxLimits;
import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicy;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicyBuilder;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The Kubernetes objects of the sandbox backend, built without IO: a locked-down pod (non-root,
 * no service-account token, no privilege escalation, all capabilities dropped, resource limits,
 * an active deadline, labels for ownership and clean-up) and the deny-all NetworkPolicy.
 */
public final class PodSpecs {
    public static final String CONTAINER = "sandbox";
    public static final long SANDBOX_UID = 1000;

    private PodSpecs() {}

    /**
     * A sandbox pod. With {@code image == null} it runs the base image with an emptyDir workspace
     * (the workspace is copied in); otherwise the image's own {@code workdir} is the workspace.
     */
    public static Pod sandboxPod(KubernetesSandboxConfig config, String name, String sandboxId, String image, String workdir,
            SandboxLimits limits, Map<String, String> env, String state) {
        boolean baseImage = image == null;
        var envVars = new ArrayList<EnvVar>();
        envVars.add(new EnvVar("HOME", "/tmp", null));
        envVars.add(new EnvVar("LANG", "C.UTF-8", null));
        // The workspace folder is the volume's (root's), its files the sandbox user's: git (2.35.2+) would refuse the repository
        // as "dubious ownership" and the episode's diff fail. One user per pod: any folder is safe (as `git -c safe.directory=*`).
        envVars.add(new EnvVar("GIT_CONFIG_COUNT", "1", null));
        envVars.add(new EnvVar("GIT_CONFIG_KEY_0", "safe.directory", null));
        envVars.add(new EnvVar("GIT_CONFIG_VALUE_0", "*", null));
        env.forEach((k, v) -> envVars.add(new EnvVar(k, v, null)));
        var builder = new PodBuilder()
                .withNewMetadata()
                    .withName(name)
                    .withNamespace(config.namespace())
                    .addToLabels(SandboxLabels.MANAGED_BY, SandboxLabels.MANAGED_BY_VALUE)
                    .addToLabels(SandboxLabels.ROLE, SandboxLabels.ROLE_SANDBOX)
                    .addToLabels(SandboxLabels.OWNER, config.runnerId())
                    .addToLabels(SandboxLabels.SANDBOX_ID, sandboxId)
                    .addToLabels(SandboxLabels.STATE, state)
                .endMetadata()
                .withNewSpec()
                    .withRestartPolicy("Never")
                    .withActiveDeadlineSeconds(config.activeDeadline().toSeconds())
                    .withAutomountServiceAccountToken(false)
                    .withEnableServiceLinks(false)
                    .withTerminationGracePeriodSeconds(0L)
                    .withNewSecurityContext()
                        .withRunAsNonRoot(true)
                        .withRunAsUser(SANDBOX_UID)
                        .withRunAsGroup(SANDBOX_UID)
                        .withFsGroup(SANDBOX_UID)
                        .withNewSeccompProfile().withType("RuntimeDefault").endSeccompProfile()
                    .endSecurityContext()
                    .addNewContainer()
                        .withName(CONTAINER)
                        .withImage(baseImage ? config.baseImage() : image)
                        .withCommand("sleep", "infinity")
                        .withWorkingDir(workdir)
                        .withEnv(envVars)
                        .withNewSecurityContext()
                            .withAllowPrivilegeEscalation(false)
                            .withPrivileged(false)
                            .withReadOnlyRootFilesystem(baseImage)
                            .withNewCapabilities().withDrop("ALL").endCapabilities()
                        .endSecurityContext()
                        .withNewResources()
                            .addToRequests("cpu", new Quantity(config.cpu()))
                            .addToRequests("memory", new Quantity(String.valueOf(limits.memoryBytes())))
                            .addToLimits("cpu", new Quantity(config.cpu()))
                            .addToLimits("memory", new Quantity(String.valueOf(limits.memoryBytes())))
                            .addToLimits("ephemeral-storage", new Quantity(String.valueOf(limits.workspaceBytes() + 256L * SandboxLimits.MiB)))
                        .endResources()
                        .addNewVolumeMount().withName("tmp").withMountPath("/tmp").endVolumeMount()
                    .endContainer()
                    .addNewVolume().withName("tmp").withNewEmptyDir().withSizeLimit(new Quantity("256Mi")).endEmptyDir().endVolume()
                .endSpec();
        if (baseImage) {
            builder.editSpec()
                    .editFirstContainer().addNewVolumeMount().withName("workspace").withMountPath(workdir).endVolumeMount().endContainer()
                    .addNewVolume().withName("workspace").withNewEmptyDir()
                        .withSizeLimit(new Quantity(String.valueOf(limits.workspaceBytes()))).endEmptyDir().endVolume()
                    .endSpec();
        }
        return builder.build();
    }

    /** Denies all ingress and egress of sandbox pods in the namespace. */
    public static NetworkPolicy denyAll(String namespace) {
        return new NetworkPolicyBuilder()
                .withNewMetadata()
                    .withName(SandboxLabels.NETWORK_POLICY)
                    .withNamespace(namespace)
                    .addToLabels(SandboxLabels.MANAGED_BY, SandboxLabels.MANAGED_BY_VALUE)
                .endMetadata()
                .withNewSpec()
                    .withNewPodSelector().addToMatchLabels(SandboxLabels.ROLE, SandboxLabels.ROLE_SANDBOX).endPodSelector()
                    .withPolicyTypes(List.of("Ingress", "Egress"))
                .endSpec()
                .build();
    }
}
