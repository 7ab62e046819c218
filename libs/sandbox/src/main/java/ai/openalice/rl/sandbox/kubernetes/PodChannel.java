package ai.openalice.rl.sandbox.kubernetes;

import ai.openalice.rl.sandbox.SandboxException;
import ai.openalice.rl.sandbox.Shell;
import ai.openalice.rl.sandbox.shell.Channel;
import ai.openalice.rl.sandbox.shell.Supervisor;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.ExecWatch;
import java.io.InputStream;
import java.io.OutputStream;
import java.time.Duration;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * A pod's supervisor runs in one exec stream of the Kubernetes API, opened at the sandbox's first
 * command and kept open: stdin takes the requests, stdout and stderr carry the output. In the pod
 * it is not pid 1 (the container's command is), so a command can end it; killing it is another
 * exec, {@code kill -9 -1}, which ends every process of the container but its pid 1 and itself.
 */
final class PodChannel implements Channel {
    private static final Duration KILL = Duration.ofSeconds(15);

    private final ExecWatch watch;
    private final PodExec exec;

    private PodChannel(ExecWatch watch, PodExec exec) {
        this.watch = watch;
        this.exec = exec;
    }

    /** Opens the stream in {@code pod}'s sandbox container, in {@code workdir}; {@code exec} runs the kill. */
    static PodChannel open(KubernetesClient client, String namespace, String pod, String workdir, PodExec exec) {
        try {
            var watch = client.pods().inNamespace(namespace).withName(pod).inContainer(PodSpecs.CONTAINER).redirectingInput().redirectingOutput()
                    .redirectingError().exec("bash", "-c", "cd " + Shell.quote(workdir) + " && " + Supervisor.LAUNCH, Supervisor.NAME);
            return new PodChannel(watch, exec);
        } catch (KubernetesClientException e) {
            throw exec.failure(e);
        }
    }

    @Override
    public OutputStream stdin() {
        return watch.getInput();
    }

    @Override
    public InputStream stdout() {
        return watch.getOutput();
    }

    @Override
    public InputStream stderr() {
        return watch.getError();
    }

    @Override
    public boolean alive() {
        return !watch.exitCode().isDone();
    }

    @Override
    public void kill() throws InterruptedException {
        try {
            exec.run("kill -9 -1 2>/dev/null; true", null, 1024, KILL);
        } catch (SandboxException e) {
            // the pod is gone or the API does not answer: closing the stream is all that is left to do
        }
        watch.close();
        awaitExit();
    }

    @Override
    public void destroy() {
        watch.close();
    }

    @Override
    public void awaitExit() {
        try {
            watch.exitCode().get(10, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (ExecutionException | TimeoutException e) {
            // it ended with the connection, or will with the pod
        }
    }

    /** The supervisor's exit status when the API reported one (it ended in the pod), else null (the stream failed, or it still runs). */
    Integer status() {
        try {
            return watch.exitCode().isDone() ? watch.exitCode().getNow(null) : null;
        } catch (RuntimeException e) {
            return null;
        }
    }
}
