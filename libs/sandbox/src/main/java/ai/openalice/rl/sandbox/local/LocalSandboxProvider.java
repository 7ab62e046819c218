package ai.openalice.rl.sandbox.local;

import ai.openalice.rl.sandbox.HostCommand;
import ai.openalice.rl.sandbox.Sandbox;
import ai.openalice.rl.sandbox.SandboxException;
import ai.openalice.rl.sandbox.SandboxProvider;
import ai.openalice.rl.sandbox.SandboxSpec;
import java.io.IOException;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.attribute.BasicFileAttributes;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.logging.Logger;
import java.util.stream.Stream;

/**
 * The {@code local} backend: bubblewrap sandboxes on this host. As root, each sandbox runs as its
 * own leased host uid with a size-limited tmpfs workspace, so process counts, disk use and
 * clean-up are per sandbox. Without root it runs as the service's user on a plain directory:
 * the process-count limit and the disk quota are then not enforced (logged at start).
 */
public final class LocalSandboxProvider implements SandboxProvider {
    private static final Logger LOG = Logger.getLogger(LocalSandboxProvider.class.getName());

    private static final Set<PosixFilePermission> TRAVERSE =
            PosixFilePermissions.fromString("rwx--x--x");

    private final LocalSandboxConfig config;
    private final boolean root;
    private final Path sandboxes;
    private final Templates templates;
    private final UidPool uids;

    public LocalSandboxProvider(LocalSandboxConfig config) {
        this.config = config;
        this.root = HostProcesses.isRoot();
        try {
            Files.createDirectories(config.root());
            this.sandboxes = Files.createDirectories(config.root().resolve("sandboxes"));
            if (root) {
                // Sandbox uids must be able to reach their workspace: traverse, not list.
                Files.setPosixFilePermissions(config.root(), TRAVERSE);
                Files.setPosixFilePermissions(sandboxes, TRAVERSE);
                requireTraversable(config.root());
            }
            this.templates = new Templates(config.root().resolve("templates"));
            // As root, a uid's processes are swept by uid, so its lease must be exclusive on the whole
            // host, not only among providers sharing this root (alice-rl train and an evaluation
            // beside it use different roots).
            this.uids = new UidPool(root ? UidPool.HOST_LEASES : config.root().resolve("uids"), config.uidBase(), config.uidCount());
        } catch (IOException e) {
            throw new SandboxException(SandboxException.Reason.IO, "cannot prepare " + config.root() + ": " + e.getMessage(), e);
        }
        requireTool("bwrap", "install bubblewrap (apt-get install bubblewrap)");
        requireTool("prlimit", "install util-linux");
        if (!root) {
            LOG.warning("local sandboxes run as this service's user (not root): the per-sandbox process-count limit and "
                    + "workspace quota are not enforced; run the runner as root for full containment");
        }
        janitor();
    }

    @Override
    public String name() {
        return "local";
    }

    boolean isRoot() {
        return root;
    }

    @Override
    public Sandbox create(SandboxSpec spec) {
        Templates.Template template = templates.get(spec.workspace());
        String id = "sbx-" + UUID.randomUUID().toString().substring(0, 13);
        Path dir = sandboxes.resolve(id);
        UidPool.Lease lease = uids.acquire();
        boolean mounted = false;
        Path ws = dir.resolve("ws");
        try {
            Files.createDirectories(ws);
            if (root) {
                Files.setPosixFilePermissions(dir, TRAVERSE);
            }
            Files.writeString(dir.resolve("owner"), ProcessHandle.current().pid() + " " + lease.uid() + "\n");
            if (root) {
                long size = spec.limits().workspaceBytes();
                HostCommand.check(List.of("mount", "-t", "tmpfs", "-o", "size=" + size + ",mode=0700,uid=" + lease.uid() + ",gid=" + lease.uid(),
                        "alice-rl-ws", ws.toString()), null, Duration.ofSeconds(30));
                mounted = true;
            }
            copyOwned(template.tree(), ws, lease.uid());
            return new LocalSandbox(id, dir, ws, mounted, config.workdir(), config.tmpBytes(), spec, root, lease, template);
        } catch (IOException | RuntimeException e) {
            if (mounted) {
                try {
                    HostCommand.run(List.of("umount", ws.toString()), null, Duration.ofSeconds(30));
                } catch (IOException ignored) {
                    // the janitor retries
                }
            }
            Templates.deleteQuietly(dir);
            lease.close();
            if (e instanceof SandboxException se) {
                throw se;
            }
            String why = e.getMessage() != null && e.getMessage().contains("No space left")
                    ? "the workspace does not fit in " + spec.limits().workspaceBytes() + " bytes" : e.getMessage();
            throw new SandboxException(SandboxException.Reason.START_FAILED, "creating sandbox " + id + ": " + why, e);
        }
    }

    /** Copies the template into the workspace, owned by the sandbox's uid. */
    private void copyOwned(Path from, Path to, int uid) throws IOException {
        Templates.copyTree(from, to);
        // Templates.copyTree skips the top-level .git: the agent gets the repository too.
        Path git = from.resolve(".git");
        if (Files.isDirectory(git)) {
            Templates.copyTree(git, to.resolve(".git"));
        }
        if (!root) {
            return;
        }
        Files.walkFileTree(to, new SimpleFileVisitor<>() {
            @Override
            public FileVisitResult preVisitDirectory(Path d, BasicFileAttributes attrs) throws IOException {
                chown(d, uid);
                return FileVisitResult.CONTINUE;
            }

            @Override
            public FileVisitResult visitFile(Path f, BasicFileAttributes attrs) throws IOException {
                chown(f, uid);
                return FileVisitResult.CONTINUE;
            }
        });
    }

    private static void chown(Path p, int uid) throws IOException {
        Files.setAttribute(p, "unix:uid", uid, LinkOption.NOFOLLOW_LINKS);
        Files.setAttribute(p, "unix:gid", uid, LinkOption.NOFOLLOW_LINKS);
    }

    /** Removes what crashed runners left behind: their processes, mounts and folders. */
    int janitor() {
        int cleaned = 0;
        try (Stream<Path> dirs = Files.list(sandboxes)) {
            for (Path d : dirs.toList()) {
                String[] owner;
                try {
                    owner = Files.readString(d.resolve("owner")).strip().split(" ");
                } catch (IOException e) {
                    owner = new String[0];
                }
                if (owner.length == 2) {
                    long pid = Long.parseLong(owner[0]);
                    int uid = Integer.parseInt(owner[1]);
                    boolean ownerAlive = pid != ProcessHandle.current().pid() && ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false);
                    if (ownerAlive || !uids.isFree(uid)) {
                        continue;
                    }
                    if (root) {
                        HostProcesses.killAll(uid);
                    }
                }
                Path ws = d.resolve("ws");
                if (isMountPoint(ws)) {
                    HostCommand.run(List.of("umount", "-l", ws.toString()), null, Duration.ofSeconds(30));
                }
                Templates.deleteQuietly(d);
                cleaned++;
            }
        } catch (IOException e) {
            LOG.warning("janitor could not scan " + sandboxes + ": " + e.getMessage());
        }
        if (cleaned > 0) {
            LOG.info("janitor removed " + cleaned + " sandbox(es) left by crashed runners");
        }
        return cleaned;
    }

    private static boolean isMountPoint(Path p) throws IOException {
        String target = p.toAbsolutePath().toString();
        try (Stream<String> lines = Files.lines(Path.of("/proc/self/mounts"))) {
            return lines.anyMatch(l -> l.split(" ").length > 1 && l.split(" ")[1].equals(target));
        }
    }

    private static void requireTraversable(Path dir) throws IOException {
        var blocked = untraversable(dir);
        if (blocked.isPresent()) {
            Path d = blocked.get();
            throw new SandboxException(SandboxException.Reason.START_FAILED, "sandbox root " + dir + " is not reachable by sandbox uids: "
                    + d + " has mode " + PosixFilePermissions.toString(Files.getPosixFilePermissions(d)) + " (needs o+x)");
        }
    }

    /** The first folder from {@code dir} up to / that the sandboxes' unprivileged uids cannot traverse (no o+x), if any. */
    public static Optional<Path> untraversable(Path dir) throws IOException {
        for (Path d = dir.toRealPath(); d != null; d = d.getParent()) {
            if (!Files.getPosixFilePermissions(d).contains(PosixFilePermission.OTHERS_EXECUTE)) {
                return Optional.of(d);
            }
        }
        return Optional.empty();
    }

    private static void requireTool(String tool, String how) {
        for (String dir : System.getenv().getOrDefault("PATH", "/usr/bin:/bin").split(":")) {
            if (Files.isExecutable(Path.of(dir, tool))) {
                return;
            }
        }
        throw new SandboxException(SandboxException.Reason.START_FAILED, tool + " not found on PATH: " + how);
    }

    @Override
    public void close() {
        // Sandboxes are closed by their users; leftovers are the janitor's.
    }
}
