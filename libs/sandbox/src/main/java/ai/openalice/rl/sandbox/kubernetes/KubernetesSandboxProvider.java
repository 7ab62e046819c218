package ai.openalice.rl.sandbox.kubernetes;

import ai.openalice.rl.sandbox.Sandbox;
import ai.openalice.rl.sandbox.SandboxException;
import ai.openalice.rl.sandbox.SandboxLimits;
import ai.openalice.rl.sandbox.SandboxProvider;
import ai.openalice.rl.sandbox.SandboxSpec;
import ai.openalice.rl.sandbox.Shell;
import ai.openalice.rl.sandbox.WorkspaceSource;
import ai.openalice.rl.sandbox.local.Templates;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.KubernetesClientTimeoutException;
import io.fabric8.kubernetes.client.dsl.NonDeletingOperation;
import java.io.FilterInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.logging.Logger;

/**
 * The {@code kubernetes} backend: one pod per sandbox through the fabric8 client. Pods run a
 * task's image (its workdir is the workspace) or the base image with the workspace copied in by
 * tar over exec; a warm pool of started base-image pods hides pod start-up; a deny-all
 * NetworkPolicy covers every sandbox pod; and the reaper deletes what a crashed runner left.
 *
 * <p>The process-count limit of a pod is the kubelet's {@code podPidsLimit}: set it on the nodes
 * that run sandboxes (there is no per-pod field).
 */
public final class KubernetesSandboxProvider implements SandboxProvider {
    private static final Logger LOG = Logger.getLogger(KubernetesSandboxProvider.class.getName());

    private final KubernetesClient client;
    private final KubernetesSandboxConfig config;
    private final Templates templates;
    private final ConcurrentLinkedQueue<String> warm = new ConcurrentLinkedQueue<>();

    public KubernetesSandboxProvider(KubernetesClient client, KubernetesSandboxConfig config, Path templateDir) {
        this.client = client;
        this.config = config;
        try {
            this.templates = new Templates(templateDir);
        } catch (IOException e) {
            throw new SandboxException(SandboxException.Reason.IO, "cannot prepare " + templateDir + ": " + e.getMessage(), e);
        }
        try {
            client.network().v1().networkPolicies().inNamespace(config.namespace()).resource(PodSpecs.denyAll(config.namespace()))
                    .createOr(NonDeletingOperation::update);
        } catch (KubernetesClientException e) {
            throw new SandboxException(SandboxException.Reason.BACKEND_UNAVAILABLE,
                    "cannot apply the sandbox NetworkPolicy in namespace " + config.namespace() + ": " + e.getMessage(), e);
        }
        int reaped = reap();
        if (reaped > 0) {
            LOG.info("reaped " + reaped + " sandbox pod(s) left by an earlier runner " + config.runnerId());
        }
    }

    @Override
    public String name() {
        return "kubernetes";
    }

    /** Starts base-image pods until the warm pool holds {@code warmPoolSize}; they are ready once this returns. */
    public void fillWarmPool() {
        while (warm.size() < config.warmPoolSize()) {
            String name = startPod(null, config.workdir(), SandboxSpec.of(new WorkspaceSource.Empty()), SandboxLabels.STATE_WARM);
            warm.add(name);
        }
    }

    int warmPods() {
        return warm.size();
    }

    @Override
    public Sandbox create(SandboxSpec spec) {
        String id = "sbx-" + UUID.randomUUID().toString().substring(0, 13);
        if (spec.workspace() instanceof WorkspaceSource.Image image) {
            String workdir = image.workdir() == null ? config.workdir() : image.workdir();
            String pod = startPod(image.image(), workdir, spec, SandboxLabels.STATE_LEASED);
            var s = new KubernetesSandbox(client, config.namespace(), pod, id, workdir, "HEAD", spec.limits().outputBytes());
            return withBase(s, pod, spec.limits().outputBytes());
        }
        Templates.Template template = templates.get(spec.workspace());
        String pod = takeWarm();
        boolean fromPool = pod != null && spec.env().isEmpty() && spec.limits().equals(SandboxLimits.defaults());
        if (!fromPool) {
            if (pod != null) {
                warm.add(pod); // warm pods have default limits and no env: keep it for a default spec
            }
            pod = startPod(null, config.workdir(), spec, SandboxLabels.STATE_LEASED);
        }
        try {
            upload(pod, template.tree());
            if (fromPool) {
                lease(pod);
            }
        } catch (RuntimeException e) {
            deletePod(pod);
            throw e;
        }
        return new KubernetesSandbox(client, config.namespace(), pod, id, config.workdir(), template.baseCommit(), spec.limits().outputBytes());
    }

    /** An image's workdir may or may not be a git repository: make sure there is a base commit to diff against. */
    private Sandbox withBase(KubernetesSandbox s, String pod, int outputCap) {
        var r = s.exec("git rev-parse --verify -q HEAD >/dev/null || { git init -q && git add -A && "
                + "git -c user.name=alice-rl -c user.email=alice-rl@localhost commit -q --allow-empty -m 'alice-rl base'; }; git rev-parse HEAD",
                Duration.ofMinutes(2));
        if (!r.ok()) {
            s.close();
            throw new SandboxException(SandboxException.Reason.WORKSPACE_UNAVAILABLE, "no git base in pod " + pod + ": " + r.stderr().strip());
        }
        return new KubernetesSandbox(client, config.namespace(), pod, s.id(), s.workdir(), r.stdout().strip(), outputCap);
    }

    private String takeWarm() {
        return warm.poll();
    }

    private void lease(String pod) {
        client.pods().inNamespace(config.namespace()).withName(pod)
                .edit(p -> new PodBuilder(p).editMetadata().addToLabels(SandboxLabels.STATE, SandboxLabels.STATE_LEASED).endMetadata().build());
    }

    private String startPod(String image, String workdir, SandboxSpec spec, String state) {
        String name = "alice-sbx-" + UUID.randomUUID().toString().substring(0, 18);
        Pod pod = PodSpecs.sandboxPod(config, name, name, image, workdir, spec.limits(), spec.env(), state);
        try {
            client.pods().inNamespace(config.namespace()).resource(pod).create();
            client.pods().inNamespace(config.namespace()).withName(name)
                    .waitUntilCondition(KubernetesSandboxProvider::ready, config.podStartTimeout().toMillis(), TimeUnit.MILLISECONDS);
            return name;
        } catch (KubernetesClientTimeoutException e) {
            String why = describe(client.pods().inNamespace(config.namespace()).withName(name).get());
            deletePod(name);
            throw new SandboxException(SandboxException.Reason.START_FAILED, "pod " + name + " not ready within " + config.podStartTimeout()
                    + ": " + why, e);
        } catch (KubernetesClientException e) {
            deletePod(name);
            throw new SandboxException(SandboxException.Reason.BACKEND_UNAVAILABLE, "cannot start pod " + name + ": " + e.getMessage(), e);
        }
    }

    static boolean ready(Pod p) {
        return p != null && p.getStatus() != null && "Running".equals(p.getStatus().getPhase()) && p.getStatus().getConditions() != null
                && p.getStatus().getConditions().stream().anyMatch(c -> "Ready".equals(c.getType()) && "True".equals(c.getStatus()));
    }

    private static String describe(Pod p) {
        if (p == null || p.getStatus() == null) {
            return "no status";
        }
        var waiting = p.getStatus().getContainerStatuses() == null ? List.<String>of() : p.getStatus().getContainerStatuses().stream()
                .filter(cs -> cs.getState() != null && cs.getState().getWaiting() != null)
                .map(cs -> cs.getState().getWaiting().getReason() + ": " + cs.getState().getWaiting().getMessage()).toList();
        return "phase " + p.getStatus().getPhase() + (waiting.isEmpty() ? "" : ", " + String.join("; ", waiting));
    }

    /**
     * Streams the template tree into the pod's workspace: {@code tar -c} here, {@code tar -x} there.
     * The archive holds the tree's entries, not the tree's own folder: the workspace folder in the
     * pod belongs to root (an emptyDir), and a tar that set its mode as the sandbox's user would fail.
     */
    private void upload(String pod, Path tree) {
        Process tar;
        try {
            var command = new ArrayList<>(List.of("tar", "-c", "-C", tree.toString()));
            try (var entries = Files.list(tree)) {
                var names = entries.map(e -> e.getFileName().toString()).sorted().toList();
                if (names.isEmpty()) {
                    command.addAll(List.of("-T", "/dev/null"));
                } else {
                    command.add("--");
                    command.addAll(names);
                }
            }
            tar = new ProcessBuilder(command).redirectError(ProcessBuilder.Redirect.DISCARD).start();
        } catch (IOException e) {
            throw new SandboxException(SandboxException.Reason.IO, "cannot run tar: " + e.getMessage(), e);
        }
        var exec = new PodExec(client, config.namespace(), pod);
        var archive = new EndableInput(tar.getInputStream());
        var o = exec.run("tar -x -m --no-same-owner -C " + Shell.quote(config.workdir()), archive, 64 * 1024, Duration.ofMinutes(5));
        archive.end();
        tar.destroy();
        if (o.exitCode() == null || o.exitCode() != 0) {
            throw new SandboxException(SandboxException.Reason.WORKSPACE_UNAVAILABLE, "copying the workspace into pod " + pod + " failed: "
                    + (o.exitCode() == null ? "no answer" : o.err().text().strip()));
        }
    }

    /**
     * Deletes this runner's pods (a restarted runner owns none of its predecessor's) and every
     * finished sandbox pod. Returns how many it deleted.
     */
    public int reap() {
        int n = 0;
        try {
            var pods = client.pods().inNamespace(config.namespace()).withLabel(SandboxLabels.ROLE, SandboxLabels.ROLE_SANDBOX).list().getItems();
            for (Pod p : pods) {
                Map<String, String> labels = p.getMetadata().getLabels();
                String phase = p.getStatus() == null ? null : p.getStatus().getPhase();
                boolean mine = config.runnerId().equals(labels.get(SandboxLabels.OWNER)) && !warm.contains(p.getMetadata().getName());
                boolean finished = "Succeeded".equals(phase) || "Failed".equals(phase);
                if (mine || finished) {
                    deletePod(p.getMetadata().getName());
                    n++;
                }
            }
        } catch (KubernetesClientException e) {
            LOG.warning("reaper could not list sandbox pods: " + e.getMessage());
        }
        return n;
    }

    private void deletePod(String name) {
        try {
            client.pods().inNamespace(config.namespace()).withName(name).withGracePeriod(0).delete();
        } catch (KubernetesClientException e) {
            LOG.warning("could not delete pod " + name + ": " + e.getMessage());
        }
    }

    @Override
    public void close() {
        String p;
        while ((p = warm.poll()) != null) {
            deletePod(p);
        }
    }

    /**
     * The archive as fabric8's pump reads it: the pod's tar exits at the archive's end marker, often
     * before ours has written its last padding, and the pump still polling the closed pipe would
     * log an error for every sandbox. Once ended, it reads an end of stream.
     */
    private static final class EndableInput extends FilterInputStream {
        private volatile boolean ended;

        EndableInput(InputStream in) {
            super(in);
        }

        void end() {
            ended = true;
        }

        @Override
        public int read(byte[] b, int off, int len) throws IOException {
            try {
                return ended ? -1 : super.read(b, off, len);
            } catch (IOException e) {
                if (ended) {
                    return -1;
                }
                throw e;
            }
        }

        @Override
        public int available() throws IOException {
            try {
                return ended ? 0 : super.available();
            } catch (IOException e) {
                if (ended) {
                    return 0;
                }
                throw e;
            }
        }
    }
}
