package ai.openalice.rl.harness;

import ai.openalice.rl.sandbox.HostCommand;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/** A git repository written by a test, and patches made against its base commit. */
public final class FixtureRepo {
    private static final Duration T = Duration.ofMinutes(2);
    public final Path dir;
    public final String base;

    private FixtureRepo(Path dir, String base) {
        this.dir = dir;
        this.base = base;
    }

    /** Writes {@code files} (path → content), commits them, and returns the repository. */
    public static FixtureRepo create(Path dir, Map<String, String> files) throws IOException {
        write(dir, files);
        git(dir, "init", "-q");
        git(dir, "add", "-A");
        git(dir, "commit", "-qm", "base");
        return new FixtureRepo(dir, git(dir, "rev-parse", "HEAD").strip());
    }

    /** The diff that turns the base into the base plus {@code changes} (content, or null to delete). */
    public String patch(Map<String, String> changes) throws IOException {
        Path work = Files.createTempDirectory("fixture-patch");
        HostCommand.check(List.of("git", "clone", "-q", dir.toString(), work.toString()), null, T);
        for (var e : changes.entrySet()) {
            Path p = work.resolve(e.getKey());
            if (e.getValue() == null) {
                Files.deleteIfExists(p);
            } else {
                Files.createDirectories(p.getParent());
                Files.writeString(p, e.getValue());
            }
        }
        git(work, "add", "-A");
        return git(work, "diff", "--cached", "--binary");
    }

    private static void write(Path dir, Map<String, String> files) throws IOException {
        for (var e : files.entrySet()) {
            Path p = dir.resolve(e.getKey());
            Files.createDirectories(p.getParent());
            Files.writeString(p, e.getValue());
        }
    }

    static String git(Path dir, String... args) throws IOException {
        var cmd = new ArrayList<>(List.of("git", "-c", "user.name=fixture", "-c", "user.email=fixture@localhost", "-c", "init.defaultBranch=main"));
        cmd.addAll(List.of(args));
        return HostCommand.check(cmd, dir, T);
    }
}
