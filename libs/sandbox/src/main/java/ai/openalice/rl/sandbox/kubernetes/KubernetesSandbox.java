package ai.openalice.rl.sandbox.kubernetes;

import ai.openalice.rl.sandbox.ExecResult;
import ai.openalice.rl.sandbox.PathEscapeException;
import ai.openalice.rl.sandbox.Sandbox;
import ai.openalice.rl.sandbox.SandboxException;
import ai.openalice.rl.sandbox.SandboxFileException;
import ai.openalice.rl.sandbox.Shell;
import ai.openalice.rl.sandbox.WorkspacePaths;
import ai.openalice.rl.sandbox.shell.Supervisor;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Supplier;

/**
 * A sandbox pod. Commands run in one shell per pod ({@link Supervisor} on a {@link PodChannel}): the
 * first command opens an exec stream that later ones reuse, and after each command everything it
 * left behind is killed; at a timeout, every process but the pod's init is killed (the shell too) and
 * the next command opens a new stream. File operations are one exec each, confined twice: the
 * path is checked lexically here, and resolved with {@code realpath} inside the pod, so symlinks
 * cannot lead outside the workspace.
 */
final class KubernetesSandbox implements Sandbox {
    private static final Duration FILE_OP = Duration.ofSeconds(60);
    static final int ESCAPE = 91;
    static final int MISSING = 92;
    static final int DIRECTORY = 93;
    /** The exit status of a command ended by SIGKILL (128 + 9). */
    static final int KILLED = 137;

    private final KubernetesClient client;
    private final String namespace;
    private final String pod;
    private final String id;
    private final String workdir;
    private final String baseCommit;
    private final int outputCap;
    private final PodExec exec;
    private final AtomicBoolean closed = new AtomicBoolean();
    private final ReentrantLock execLock = new ReentrantLock();
    private volatile Supervisor shell;
    private volatile Supplier<String> tokens;
    /** The container's memory cgroup's oom_kill count when last read (a pod starts at 0). */
    private long oomKills;

    KubernetesSandbox(KubernetesClient client, String namespace, String pod, String id, String workdir, String baseCommit, int outputCap) {
        this.client = client;
        this.namespace = namespace;
        this.pod = pod;
        this.id = id;
        this.workdir = workdir;
        this.baseCommit = baseCommit;
        this.outputCap = outputCap;
        this.exec = new PodExec(client, namespace, pod);
    }

    @Override
    public String id() {
        return id;
    }

    @Override
    public String workdir() {
        return workdir;
    }

    String podName() {
        return pod;
    }

    /** The shell's end-of-output tokens from {@code t} instead of random ones (tests whose API server scripts the shell's output). */
    void tokens(Supplier<String> t) {
        tokens = t;
    }

    @Override
    public ExecResult exec(String command, Duration timeout) {
        ensureOpen();
        execLock.lock();
        try {
            ensureOpen();
            if (shell == null || !shell.alive()) {
                dropShell();
                var channel = PodChannel.open(client, namespace, pod, workdir, exec);
                shell = tokens == null ? Supervisor.start(channel) : Supervisor.start(channel, tokens);
            }
            long start = System.nanoTime();
            Supervisor.Outcome o = shell.run(command, timeout, outputCap);
            Duration took = Duration.ofNanos(System.nanoTime() - start);
            if (o.exit() == null) {
                var channel = (PodChannel) shell.channel();
                shell = null; // killed by run: the next command opens a new stream
                if (!o.timedOut()) {
                    return ended(channel, o, took);
                }
            }
            if (!o.timedOut() && o.exit() == KILLED && overMemory()) {
                throw new SandboxException(SandboxException.Reason.LIMIT_EXCEEDED, "pod " + pod + ": the kernel killed the command at the"
                        + " sandbox's memory limit (its cgroup's oom_kill count rose to " + oomKills + ")");
            }
            return new ExecResult(o.timedOut() ? -1 : o.exit(), o.out().text(), o.err().text(), o.out().truncated(), o.err().truncated(),
                    o.timedOut(), took);
        } catch (InterruptedException e) {
            dropShell();
            Thread.currentThread().interrupt();
            throw new SandboxException(SandboxException.Reason.SANDBOX_DIED, "interrupted while running a command in pod " + pod, e);
        } finally {
            execLock.unlock();
        }
    }

    /**
     * Whether the container's memory cgroup killed a process since the last look: where the kernel
     * kills only the process that went over (cgroup v1, or v2 without memory.oom.group) the pod is
     * never OOMKilled, and the command's SIGKILL is all there is to see. The count is read from
     * cgroup v2's memory.events or v1's memory.oom_control, both with an {@code oom_kill} line; a
     * pod that shows neither is taken at its exit status.
     */
    private boolean overMemory() {
        try {
            var o = exec.run("cat /sys/fs/cgroup/memory.events /sys/fs/cgroup/memory/memory.oom_control 2>/dev/null; true", null, 4096, FILE_OP);
            long seen = o.out().text().lines().filter(l -> l.startsWith("oom_kill ")).mapToLong(l -> Long.parseLong(l.substring(9).strip()))
                    .max().orElse(0);
            boolean rose = seen > oomKills;
            oomKills = Math.max(oomKills, seen);
            return rose;
        } catch (SandboxException | NumberFormatException e) {
            return false;
        }
    }

    /**
     * The shell's stream ended in the middle of a command: the pod died or went over its memory
     * limit, the API failed, or (the pod running and the shell's exit reported) the command ended
     * its own shell — then that is the command's outcome.
     */
    private ExecResult ended(PodChannel channel, Supervisor.Outcome o, Duration took) {
        Integer status = channel.status();
        var why = exec.failure(new KubernetesClientException("the shell stream of pod " + pod + " ended in the middle of a command"
                + (status == null ? "" : " (status " + status + ")")));
        if (why.reason() != SandboxException.Reason.BACKEND_UNAVAILABLE || status == null) {
            throw why;
        }
        return new ExecResult(status, o.out().text(), o.err().text() + "\n[alice-rl: the command ended the sandbox's shell (status " + status + ")]",
                o.out().truncated(), o.err().truncated(), false, took);
    }

    private void dropShell() {
        Supervisor s = shell;
        shell = null;
        if (s != null) {
            try {
                s.kill();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /** A script prefix that resolves {@code path} inside the pod into {@code $p}, refusing escapes. */
    private String resolveScript(String path) {
        String rel = WorkspacePaths.relative(workdir, path).toString();
        String w = Shell.quote(workdir);
        return "cd " + w + " || exit 90; p=$(realpath -m -- " + Shell.quote(rel.isEmpty() ? "." : rel) + ") || exit 90; "
                + "case \"$p\" in " + w + "|" + w + "/*) ;; *) exit " + ESCAPE + ";; esac; ";
    }

    @Override
    public String readFile(String path) {
        ensureOpen();
        String script = resolveScript(path) + "[ -e \"$p\" ] || exit " + MISSING + "; [ -d \"$p\" ] && exit " + DIRECTORY + "; cat -- \"$p\"";
        PodExec.Outcome o = exec.run(script, null, 16 * 1024 * 1024, FILE_OP);
        check(o, path);
        if (o.out().truncated()) {
            throw new SandboxFileException(path + " is larger than 16 MiB");
        }
        return o.out().text();
    }

    @Override
    public void writeFile(String path, String content) {
        ensureOpen();
        byte[] bytes = content.getBytes(StandardCharsets.UTF_8);
        // head -c reads exactly the content: the exec stream does not carry the end of stdin to the pod, and cat would wait for it
        String script = resolveScript(path) + "[ -d \"$p\" ] && exit " + DIRECTORY + "; mkdir -p -- \"$(dirname -- \"$p\")\" && head -c "
                + bytes.length + " > \"$p\"";
        check(exec.run(script, new ByteArrayInputStream(bytes), 4096, FILE_OP), path);
    }

    @Override
    public FileKind stat(String path) {
        ensureOpen();
        String script = resolveScript(path) + "if [ -d \"$p\" ]; then echo d; elif [ -e \"$p\" ]; then echo f; else echo m; fi";
        PodExec.Outcome o = exec.run(script, null, 4096, FILE_OP);
        check(o, path);
        return switch (o.out().text().strip()) {
            case "d" -> FileKind.DIRECTORY;
            case "f" -> FileKind.FILE;
            default -> FileKind.MISSING;
        };
    }

    private void check(PodExec.Outcome o, String path) {
        if (o.exitCode() == null) {
            throw new SandboxException(SandboxException.Reason.BACKEND_UNAVAILABLE, "no answer from pod " + pod + " for " + path);
        }
        switch (o.exitCode()) {
            case 0 -> { }
            case ESCAPE -> throw new PathEscapeException(path + " leads outside the workspace (through a symlink)");
            case MISSING -> throw new SandboxFileException(path + " does not exist");
            case DIRECTORY -> throw new SandboxFileException(path + " is a directory");
            default -> throw new SandboxFileException("cannot access " + path + ": " + o.err().text().strip());
        }
    }

    @Override
    public String diff() {
        ensureOpen();
        String git = "git -c core.fsmonitor=false -c core.hooksPath=/dev/null -c core.excludesFile=/dev/null";
        String script = "cd " + Shell.quote(workdir) + " && " + git + " add -A >/dev/null && " + git
                + " diff --cached --binary --no-color --no-ext-diff --no-textconv " + Shell.quote(baseCommit);
        PodExec.Outcome o = exec.run(script, null, 64 * 1024 * 1024, FILE_OP);
        if (o.exitCode() == null || o.exitCode() != 0) {
            throw new SandboxException(SandboxException.Reason.IO, "git diff in pod " + pod + " failed: " + o.err().text().strip());
        }
        return o.out().text();
    }

    private void ensureOpen() {
        if (closed.get()) {
            throw new SandboxException(SandboxException.Reason.CLOSED, "sandbox " + id + " is closed");
        }
    }

    @Override
    public void close() {
        if (closed.compareAndSet(false, true)) {
            Supervisor s = shell;
            if (s != null) {
                s.destroy(); // not under the exec lock: closing must not wait for a running command
            }
            try {
                client.pods().inNamespace(namespace).withName(pod).withGracePeriod(0).delete();
            } catch (KubernetesClientException e) {
                // the reaper deletes what is left
            }
        }
    }
}
