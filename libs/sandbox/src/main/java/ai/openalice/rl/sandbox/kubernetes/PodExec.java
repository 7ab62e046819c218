package ai.openalice.rl.sandbox.kubernetes;

import ai.openalice.rl.sandbox.OutputCollector;
import ai.openalice.rl.sandbox.SandboxException;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.ExecWatch;
import java.io.InputStream;
import java.io.OutputStream;
import java.time.Duration;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/** Runs {@code bash -c} in a sandbox pod over the exec API, capturing capped output and the exit code. */
final class PodExec {
    private final KubernetesClient client;
    private final String namespace;
    private final String pod;

    PodExec(KubernetesClient client, String namespace, String pod) {
        this.client = client;
        this.namespace = namespace;
        this.pod = pod;
    }

    /** Exit code (null when no answer came within {@code wait}), stdout and stderr. */
    record Outcome(Integer exitCode, OutputCollector out, OutputCollector err) {}

    /** The exec stream closed without an exit status: the connection or the pod failed, not the command. */
    private SandboxException lostStatus() {
        return failure(new KubernetesClientException("the exec stream of pod " + pod + " ended without an exit status"));
    }

    Outcome run(String script, InputStream stdin, int outputCap, Duration wait) {
        var out = new OutputCollector(outputCap);
        var err = new OutputCollector(outputCap);
        var resource = client.pods().inNamespace(namespace).withName(pod).inContainer(PodSpecs.CONTAINER);
        var withInput = stdin == null ? resource : resource.readingInput(stdin);
        try (ExecWatch watch = withInput.writingOutput(sink(out)).writingError(sink(err)).exec("bash", "-c", script)) {
            Integer code = watch.exitCode().get(wait.toMillis(), TimeUnit.MILLISECONDS);
            if (code == null) {
                throw lostStatus();
            }
            return new Outcome(code, out, err);
        } catch (TimeoutException e) {
            return new Outcome(null, out, err);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new SandboxException(SandboxException.Reason.SANDBOX_DIED, "interrupted while waiting for pod " + pod, e);
        } catch (ExecutionException | KubernetesClientException e) {
            throw failure(e);
        }
    }

    /** Why the exec failed: the pod is gone (the sandbox died) or the API did not answer. */
    SandboxException failure(Exception e) {
        try {
            var p = client.pods().inNamespace(namespace).withName(pod).get();
            if (p == null) {
                return new SandboxException(SandboxException.Reason.SANDBOX_DIED, "pod " + pod + " vanished", e);
            }
            String phase = p.getStatus() == null ? null : p.getStatus().getPhase();
            if (oomKilled(p)) {
                return new SandboxException(SandboxException.Reason.LIMIT_EXCEEDED, "pod " + pod + ": its container was OOMKilled (the agent's"
                        + " command went over the sandbox's memory limit)", e);
            }
            if ("Failed".equals(phase) || "Succeeded".equals(phase)) {
                return new SandboxException(SandboxException.Reason.SANDBOX_DIED, "pod " + pod + " is " + phase
                        + (p.getStatus().getReason() == null ? "" : " (" + p.getStatus().getReason() + ")"), e);
            }
        } catch (KubernetesClientException inner) {
            e.addSuppressed(inner);
        }
        return new SandboxException(SandboxException.Reason.BACKEND_UNAVAILABLE, "exec in pod " + pod + " failed: " + causes(e), e);
    }

    /**
     * The exception's message and its causes', outermost first: fabric8 wraps what went wrong (a reset
     * connection, a refused upgrade) in "An error has occurred.", which alone says nothing.
     */
    static String causes(Throwable e) {
        var out = new StringBuilder();
        int depth = 0;
        for (Throwable t = e; t != null && depth < 4; t = t.getCause(), depth++) {
            out.append(depth == 0 ? "" : "; caused by ").append(t.getClass().getSimpleName());
            if (t.getMessage() != null) {
                out.append(": ").append(t.getMessage());
            }
        }
        return out.toString();
    }

    private static boolean oomKilled(Pod p) {
        if (p.getStatus() == null || p.getStatus().getContainerStatuses() == null) {
            return false;
        }
        return p.getStatus().getContainerStatuses().stream().anyMatch(c -> c.getState() != null && c.getState().getTerminated() != null
                && "OOMKilled".equals(c.getState().getTerminated().getReason()));
    }

    private static OutputStream sink(OutputCollector c) {
        return new OutputStream() {
            @Override
            public void write(int b) {
                c.accept(new byte[] {(byte) b}, 0, 1);
            }

            @Override
            public void write(byte[] b, int off, int len) {
                c.accept(b, off, len);
            }
        };
    }
}
