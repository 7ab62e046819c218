package ai.openalice.rl.sandbox.local;

import ai.openalice.rl.sandbox.HostCommand;
import ai.openalice.rl.sandbox.SandboxException;
import ai.openalice.rl.sandbox.Submodules;
import ai.openalice.rl.sandbox.WorkspaceSource;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileSystemException;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HexFormat;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.Stream;

/**
 * Workspace templates: each source (a git commit, a directory, a tarball) is materialised once
 * per host into a fresh single-commit git repository ({@code tree/}, the base of every diff), and
 * every sandbox of that source starts from a copy. The rollouts of a GRPO group share one template.
 * A git source contributes only its tree at the commit — no history, so no later commit (the fix)
 * can be read from inside.
 */
public final class Templates {
    static final Duration HELPER_TIMEOUT = Duration.ofMinutes(5);
    private static final List<String> GIT_IDENTITY = List.of("-c", "user.name=alice-rl", "-c", "user.email=alice-rl@localhost",
            "-c", "commit.gpgsign=false", "-c", "init.defaultBranch=main", "-c", "gc.auto=0", "-c", "maintenance.auto=false");

    private final Path dir;
    private final ConcurrentHashMap<String, Object> building = new ConcurrentHashMap<>();

    public Templates(Path dir) throws IOException {
        this.dir = Files.createDirectories(dir);
    }

    /** A ready template: its tree (with .git) and its base commit. */
    public record Template(Path tree, String baseCommit) {}

    public Template get(WorkspaceSource source) {
        String key;
        try {
            key = key(source);
        } catch (IOException e) {
            throw new SandboxException(SandboxException.Reason.WORKSPACE_UNAVAILABLE, describe(source) + ": " + e.getMessage(), e);
        }
        Path ready = dir.resolve(key);
        if (Files.isDirectory(ready)) {
            return load(ready);
        }
        synchronized (building.computeIfAbsent(key, k -> new Object())) {
            if (!Files.isDirectory(ready)) {
                build(source, ready);
            }
        }
        return load(ready);
    }

    private static Template load(Path ready) {
        try {
            return new Template(ready.resolve("tree"), Files.readString(ready.resolve("base")).strip());
        } catch (IOException e) {
            throw new SandboxException(SandboxException.Reason.IO, "template " + ready + " is unreadable: " + e.getMessage(), e);
        }
    }

    private void build(WorkspaceSource source, Path ready) {
        Path tmp = dir.resolve(ready.getFileName() + ".tmp-" + UUID.randomUUID());
        Path tree = tmp.resolve("tree");
        try {
            Files.createDirectories(tree);
            switch (source) {
                case WorkspaceSource.Git g -> {
                    HostCommand.check(List.of("bash", "-c",
                            "set -o pipefail; git -C \"$1\" archive --format=tar \"$2\" | tar -x -C \"$3\"", "bash",
                            g.repo().toString(), g.commit(), tree.toString()), null, HELPER_TIMEOUT);
                    Submodules.fill(g.repo(), g.commit(), tree);
                }
                case WorkspaceSource.Dir d -> copyTree(d.path(), tree);
                case WorkspaceSource.Tarball t -> HostCommand.check(List.of("tar", "-xf", t.path().toString(), "-C", tree.toString()),
                        null, HELPER_TIMEOUT);
                case WorkspaceSource.Empty e -> { }
                case WorkspaceSource.Image i -> throw new SandboxException(SandboxException.Reason.WORKSPACE_UNAVAILABLE,
                        "image workspaces (" + i.image() + ") need the kubernetes sandbox backend");
            }
            git(tree, "init", "-q");
            git(tree, "add", "-A");
            git(tree, "commit", "-q", "--allow-empty", "--no-verify", "-m", "alice-rl base");
            // One pack instead of thousands of loose objects: every sandbox copies .git, and no
            // background auto-gc may rewrite the template while it is being copied.
            git(tree, "repack", "-a", "-d", "-q");
            String base = git(tree, "rev-parse", "HEAD").strip();
            Files.writeString(tmp.resolve("base"), base + "\n");
            try {
                Files.move(tmp, ready, StandardCopyOption.ATOMIC_MOVE);
            } catch (FileSystemException raced) {
                // Another process sharing this folder built the same template first (the name is
                // the source's hash, and its rename was atomic): use that one. Linux says ENOTEMPTY,
                // which Java reports as a plain FileSystemException.
                if (!Files.isDirectory(ready)) {
                    throw raced;
                }
                deleteQuietly(tmp);
            }
        } catch (IOException e) {
            deleteQuietly(tmp);
            throw new SandboxException(SandboxException.Reason.WORKSPACE_UNAVAILABLE, describe(source) + ": " + e.getMessage(), e);
        }
    }

    private static String git(Path tree, String... args) throws IOException {
        var cmd = new ArrayList<String>();
        cmd.add("git");
        cmd.addAll(GIT_IDENTITY);
        cmd.addAll(List.of(args));
        return HostCommand.check(cmd, tree, HELPER_TIMEOUT);
    }

    /** Copies a directory tree ({@code .git} at the top excluded), keeping symlinks as links and the executable bit. */
    static void copyTree(Path from, Path to) throws IOException {
        if (!Files.isDirectory(from)) {
            throw new IOException(from + " is not a directory");
        }
        Files.walkFileTree(from, new SimpleFileVisitor<>() {
            @Override
            public FileVisitResult preVisitDirectory(Path d, BasicFileAttributes attrs) throws IOException {
                if (d.getParent() != null && d.getParent().equals(from) && d.getFileName().toString().equals(".git")) {
                    return FileVisitResult.SKIP_SUBTREE;
                }
                Files.createDirectories(to.resolve(from.relativize(d).toString()));
                return FileVisitResult.CONTINUE;
            }

            @Override
            public FileVisitResult visitFile(Path f, BasicFileAttributes attrs) throws IOException {
                Path target = to.resolve(from.relativize(f).toString());
                if (attrs.isSymbolicLink()) {
                    Files.createSymbolicLink(target, Files.readSymbolicLink(f));
                } else if (attrs.isRegularFile()) {
                    Files.copy(f, target, StandardCopyOption.COPY_ATTRIBUTES, LinkOption.NOFOLLOW_LINKS);
                }
                return FileVisitResult.CONTINUE;
            }
        });
    }

    private static String key(WorkspaceSource source) throws IOException {
        String descriptor = switch (source) {
            case WorkspaceSource.Git g -> {
                String sha = HostCommand.check(List.of("git", "-C", g.repo().toString(), "rev-parse", "--verify", "-q", g.commit() + "^{commit}"),
                        null, HELPER_TIMEOUT).strip();
                var filled = new StringBuilder(); // a submodule's mirror added later makes another template
                Submodules.of(g.repo(), sha).forEach(l -> filled.append('|').append(l.path()).append('@').append(l.commit()).append(l.mirror() != null));
                yield "git|" + g.repo().toRealPath() + "|" + sha + filled;
            }
            case WorkspaceSource.Dir d -> "dir|" + d.path().toRealPath() + "|" + fingerprint(d.path());
            case WorkspaceSource.Tarball t -> {
                Path real = t.path().toRealPath();
                yield "tar|" + real + "|" + Files.size(real) + "|" + Files.getLastModifiedTime(real).toMillis();
            }
            case WorkspaceSource.Empty e -> "empty";
            case WorkspaceSource.Image i -> "image|" + i.image();
        };
        try {
            byte[] h = MessageDigest.getInstance("SHA-256").digest(descriptor.getBytes(StandardCharsets.UTF_8));
            return HexFormat.of().formatHex(h, 0, 16);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    /** Paths, sizes and modification times of a directory's files: a changed directory gets a new template. */
    private static String fingerprint(Path root) throws IOException {
        var sb = new StringBuilder();
        try (Stream<Path> files = Files.walk(root)) {
            files.sorted().forEach(p -> {
                try {
                    var a = Files.readAttributes(p, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
                    sb.append(root.relativize(p)).append('|').append(a.size()).append('|').append(a.lastModifiedTime().toMillis()).append('\n');
                } catch (IOException e) {
                    sb.append(p).append("|?\n");
                }
            });
        }
        return sb.toString();
    }

    static String describe(WorkspaceSource source) {
        return switch (source) {
            case WorkspaceSource.Git g -> "git " + g.repo() + "@" + g.commit();
            case WorkspaceSource.Dir d -> "dir " + d.path();
            case WorkspaceSource.Tarball t -> "tarball " + t.path();
            case WorkspaceSource.Image i -> "image " + i.image();
            case WorkspaceSource.Empty e -> "empty workspace";
        };
    }

    public static void deleteQuietly(Path p) {
        if (!Files.exists(p, LinkOption.NOFOLLOW_LINKS)) {
            return;
        }
        try (Stream<Path> walk = Files.walk(p)) {
            walk.sorted(Comparator.reverseOrder()).forEach(f -> {
                try {
                    Files.deleteIfExists(f);
                } catch (IOException ignored) {
                    // best effort; the janitor retries
                }
            });
        } catch (IOException ignored) {
            // best effort
        }
    }
}
