package ai.openalice.rl.sandbox.local;

import ai.openalice.rl.sandbox.ExecResult;
import ai.openalice.rl.sandbox.HostCommand;
import ai.openalice.rl.sandbox.OutputCollector;
import ai.openalice.rl.sandbox.PipeReaders;
import ai.openalice.rl.sandbox.Sandbox;
import ai.openalice.rl.sandbox.SandboxException;
import ai.openalice.rl.sandbox.SandboxFileException;
import ai.openalice.rl.sandbox.SandboxSpec;
import ai.openalice.rl.sandbox.WorkspacePaths;
import ai.openalice.rl.sandbox.shell.ProcessChannel;
import ai.openalice.rl.sandbox.shell.Supervisor;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.SeekableByteChannel;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.ReentrantLock;

/** A bubblewrap sandbox: one workspace (a size-limited tmpfs when running as root), one host uid. */
final class LocalSandbox implements Sandbox {
    static final long MAX_FILE_READ = 16L * 1024 * 1024;

    private final String id;
    private final Path dir;
    private final Path workspace;
    private final Path workspaceReal;
    private final String workdir;
    private final long tmpBytes;
    private final SandboxSpec spec;
    private final boolean root;
    private final UidPool.Lease lease;
    private final Templates.Template template;
    private final boolean mounted;
    private final AtomicBoolean closed = new AtomicBoolean();
    private final ReentrantLock execLock = new ReentrantLock();
    /**
     * What bubblewrap runs: {@link Supervisor#LAUNCH} with every signal at its default first — a
     * service started in the background of a shell inherits SIGINT and SIGQUIT ignored, and bash
     * cannot undo that for the commands it runs.
     */
    static final List<String> PROGRAM = List.of("/usr/bin/env", "--default-signal", "/bin/bash", "-c", Supervisor.LAUNCH, Supervisor.NAME);

    private volatile Supervisor supervisor;

    LocalSandbox(String id, Path dir, Path workspace, boolean mounted, String workdir, long tmpBytes, SandboxSpec spec, boolean root,
            UidPool.Lease lease, Templates.Template template) throws IOException {
        this.id = id;
        this.dir = dir;
        this.workspace = workspace;
        this.workspaceReal = workspace.toRealPath();
        this.mounted = mounted;
        this.workdir = workdir;
        this.tmpBytes = tmpBytes;
        this.spec = spec;
        this.root = root;
        this.lease = lease;
        this.template = template;
    }

    @Override
    public String id() {
        return id;
    }

    @Override
    public String workdir() {
        return workdir;
    }

    int hostUid() {
        return lease.uid();
    }

    Path hostWorkspace() {
        return workspace;
    }

    /**
     * Runs the command through the sandbox's supervisor, started at the first command and again
     * after a timeout (which kills the sandbox's processes: the workspace stays, /tmp does not).
     * Commands in one sandbox run one at a time.
     */
    @Override
    public ExecResult exec(String command, Duration timeout) {
        ensureOpen();
        execLock.lock();
        try {
            ensureOpen();
            if (supervisor == null || !supervisor.alive()) {
                dropSupervisor();
                supervisor = Supervisor.start(startBwrap());
            }
            long start = System.nanoTime();
            Supervisor.Outcome o = supervisor.run(command, timeout, spec.limits().outputBytes());
            Duration took = Duration.ofNanos(System.nanoTime() - start);
            if (o.exit() == null) {
                int status = ((ProcessChannel) supervisor.channel()).exitValue();
                dropSupervisor();
                if (!o.timedOut()) {
                    String stderr = o.err().text().strip();
                    boolean startFailed = stderr.startsWith("bwrap: ") || stderr.startsWith("prlimit: ") || stderr.startsWith("setpriv: ");
                    throw new SandboxException(startFailed ? SandboxException.Reason.START_FAILED : SandboxException.Reason.SANDBOX_DIED,
                            startFailed ? stderr : "the sandbox's supervisor ended (status " + status + ") while running a command: " + stderr);
                }
            }
            int exit = o.timedOut() ? -1 : o.exit();
            return new ExecResult(exit, o.out().text(), o.err().text(), o.out().truncated(), o.err().truncated(), o.timedOut(), took);
        } catch (InterruptedException e) {
            dropSupervisorQuietly();
            Thread.currentThread().interrupt();
            throw new SandboxException(SandboxException.Reason.SANDBOX_DIED, "interrupted while running a command", e);
        } finally {
            execLock.unlock();
        }
    }

    /** Starts bubblewrap running {@link #PROGRAM} in this sandbox's namespaces and limits. */
    private ProcessChannel startBwrap() {
        var commandLine = BwrapCommand.build(root, lease.uid(), workspace, workdir, tmpBytes, spec, PROGRAM);
        try {
            return new ProcessChannel(new ProcessBuilder(commandLine).directory(dir.toFile()).start());
        } catch (IOException e) {
            throw new SandboxException(SandboxException.Reason.START_FAILED, "cannot start bubblewrap: " + e.getMessage(), e);
        }
    }

    /** The host pids of the sandbox's own long-lived processes (bubblewrap and the supervisor); none before the first command. */
    Set<Long> ownPids() {
        Supervisor s = supervisor;
        return s == null ? Set.of() : ((ProcessChannel) s.channel()).pids();
    }

    /** Kills the supervisor and, as root, whatever of the sandbox's uid outlived it. */
    private void dropSupervisor() throws InterruptedException {
        Supervisor s = supervisor;
        supervisor = null;
        if (s != null) {
            s.kill();
        }
        if (s != null && root) {
            HostProcesses.killAll(lease.uid());
        }
    }

    private void dropSupervisorQuietly() {
        try {
            dropSupervisor();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    @Override
    public String readFile(String path) {
        ensureOpen();
        Path p = resolve(path, true);
        try {
            if (Files.isDirectory(p, LinkOption.NOFOLLOW_LINKS)) {
                throw new SandboxFileException(path + " is a directory");
            }
            if (!Files.isRegularFile(p, LinkOption.NOFOLLOW_LINKS)) {
                throw new SandboxFileException(path + " is not a regular file");
            }
            if (Files.size(p) > MAX_FILE_READ) {
                throw new SandboxFileException(path + " is larger than " + MAX_FILE_READ / (1024 * 1024) + " MiB");
            }
            byte[] bytes;
            try (var ch = Files.newByteChannel(p, StandardOpenOption.READ, LinkOption.NOFOLLOW_LINKS)) {
                bytes = Channels.readAll(ch);
            }
            return StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
                    .decode(ByteBuffer.wrap(bytes)).toString();
        } catch (NoSuchFileException e) {
            throw new SandboxFileException(path + " does not exist");
        } catch (CharacterCodingException e) {
            throw new SandboxFileException(path + " is not UTF-8 text");
        } catch (IOException e) {
            throw new SandboxException(SandboxException.Reason.IO, "reading " + path + ": " + e.getMessage(), e);
        }
    }

    @Override
    public void writeFile(String path, String content) {
        ensureOpen();
        Path p = resolve(path, false);
        try {
            if (Files.isDirectory(p, LinkOption.NOFOLLOW_LINKS)) {
                throw new SandboxFileException(path + " is a directory");
            }
            createParents(p.getParent());
            byte[] bytes = content.getBytes(StandardCharsets.UTF_8);
            try (var ch = Files.newByteChannel(p, StandardOpenOption.CREATE, StandardOpenOption.WRITE, StandardOpenOption.TRUNCATE_EXISTING,
                    LinkOption.NOFOLLOW_LINKS)) {
                ch.write(ByteBuffer.wrap(bytes));
            }
            own(p);
        } catch (FileSystemException e) {
            String reason = e.getReason() == null ? e.getMessage() : e.getReason();
            if (reason != null && reason.contains("No space left")) {
                throw new SandboxFileException("cannot write " + path + ": the workspace is full");
            }
            throw new SandboxException(SandboxException.Reason.IO, "writing " + path + ": " + reason, e);
        } catch (IOException e) {
            throw new SandboxException(SandboxException.Reason.IO, "writing " + path + ": " + e.getMessage(), e);
        }
    }

    @Override
    public FileKind stat(String path) {
        ensureOpen();
        Path p = resolve(path, false);
        if (Files.isDirectory(p, LinkOption.NOFOLLOW_LINKS)) {
            return FileKind.DIRECTORY;
        }
        return Files.exists(p, LinkOption.NOFOLLOW_LINKS) ? FileKind.FILE : FileKind.MISSING;
    }

    private void createParents(Path parent) throws IOException {
        var missing = new ArrayList<Path>();
        for (Path d = parent; d != null && !Files.exists(d, LinkOption.NOFOLLOW_LINKS); d = d.getParent()) {
            missing.addFirst(d);
        }
        for (Path d : missing) {
            Files.createDirectory(d);
            own(d);
        }
    }

    private void own(Path p) throws IOException {
        if (root) {
            Files.setAttribute(p, "unix:uid", lease.uid(), LinkOption.NOFOLLOW_LINKS);
            Files.setAttribute(p, "unix:gid", lease.uid(), LinkOption.NOFOLLOW_LINKS);
        }
    }

    /** Maps a sandbox path to the host, refusing anything that leads outside the workspace. */
    Path resolve(String path, boolean mustExist) {
        return WorkspacePaths.resolve(workspaceReal, workdir, path, mustExist);
    }

    @Override
    public String diff() {
        ensureOpen();
        // The base repository, index and new objects live outside the workspace (root-owned, never
        // mounted): the agent cannot rewrite its own base, and its .git config is never read here.
        Path gitDir = template.tree().resolve(".git");
        Path objects = dir.resolve("diff-objects");
        Path index = dir.resolve("diff-index");
        var env = Map.of("GIT_DIR", gitDir.toString(), "GIT_WORK_TREE", workspace.toString(), "GIT_INDEX_FILE", index.toString(),
                "GIT_OBJECT_DIRECTORY", objects.toString(), "GIT_ALTERNATE_OBJECT_DIRECTORIES", gitDir.resolve("objects").toString());
        try {
            Files.createDirectories(objects);
            run(env, "git", "-c", "core.fsmonitor=false", "-c", "core.hooksPath=/dev/null", "-c", "core.excludesFile=/dev/null",
                    "add", "-A", "--", ".", ":(exclude).git");
            return run(env, "git", "-c", "core.fsmonitor=false", "-c", "diff.noprefix=false", "diff", "--cached", "--binary",
                    "--no-color", "--no-ext-diff", "--no-textconv", template.baseCommit());
        } catch (IOException e) {
            throw new SandboxException(SandboxException.Reason.IO, "computing the workspace diff: " + e.getMessage(), e);
        }
    }

    private String run(Map<String, String> env, String... cmd) throws IOException {
        var pb = new ProcessBuilder(cmd).directory(workspace.toFile()).redirectErrorStream(false);
        pb.environment().putAll(env);
        pb.environment().put("GIT_CONFIG_NOSYSTEM", "1");
        pb.environment().put("GIT_CONFIG_GLOBAL", "/dev/null");
        Process p = pb.start();
        var out = new OutputCollector(64 * 1024 * 1024);
        var err = new OutputCollector(64 * 1024);
        Thread a = PipeReaders.drain(p.getInputStream(), out);
        Thread b = PipeReaders.drain(p.getErrorStream(), err);
        try {
            if (!p.waitFor(Templates.HELPER_TIMEOUT.toSeconds(), TimeUnit.SECONDS)) {
                p.destroyForcibly();
                throw new IOException(cmd[0] + " timed out");
            }
            a.join();
            b.join();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted", e);
        }
        if (p.exitValue() != 0) {
            throw new IOException(String.join(" ", cmd) + " exited " + p.exitValue() + ": " + err.text().strip());
        }
        return out.text();
    }

    private void ensureOpen() {
        if (closed.get()) {
            throw new SandboxException(SandboxException.Reason.CLOSED, "sandbox " + id + " is closed");
        }
    }

    @Override
    public void close() {
        if (!closed.compareAndSet(false, true)) {
            return;
        }
        Supervisor s = supervisor;
        if (s != null) {
            // Not under the exec lock: closing must not wait for a running command.
            s.destroy();
            s.awaitExit();
        }
        try {
            if (root) {
                HostProcesses.killAll(lease.uid());
            }
            if (mounted) {
                HostCommand.run(List.of("umount", workspace.toString()), null, Duration.ofSeconds(30));
            }
        } catch (IOException ignored) {
            // the janitor finishes the job
        } finally {
            Templates.deleteQuietly(dir);
            lease.close();
        }
    }

    /** Reads a channel fully (files are small: capped by {@link #MAX_FILE_READ}). */
    private static final class Channels {
        static byte[] readAll(SeekableByteChannel ch) throws IOException {
            var buf = ByteBuffer.allocate((int) Math.min(ch.size(), MAX_FILE_READ));
            while (buf.hasRemaining() && ch.read(buf) > 0) {
                // keep reading
            }
            return Arrays.copyOf(buf.array(), buf.position());
        }
    }
}
