package ai.openalice.rl.harness;

import ai.openalice.rl.events.task.Task;
import ai.openalice.rl.events.task.TaskParser;
import ai.openalice.rl.sandbox.HostCommand;
import ai.openalice.rl.sandbox.local.LocalSandboxConfig;
import ai.openalice.rl.sandbox.local.LocalSandboxProvider;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;

/** A git repository written by a test, patches made against its base commit, and the tasks and sandboxes the harness tests share. */
public final class FixtureRepo {
    private static final ObjectMapper JSON = new ObjectMapper();
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

    /** Commits {@code files} (path → content) on top of the repository's head; returns the new commit (the base stays the first). */
    public String commit(Map<String, String> files) throws IOException {
        write(dir, files);
        git(dir, "add", "-A");
        git(dir, "commit", "-qm", "later");
        return git(dir, "rev-parse", "HEAD").strip();
    }

    /** The diff that turns the base into the base plus {@code changes} (content, or null to delete). */
    public String patch(Map<String, String> changes) throws IOException {
        Path work = Files.createTempDirectory("fixture-patch");
        HostCommand.check(List.of("git", "clone", "-q", dir.toString(), work.toString()), null, T);
        git(work, "checkout", "-q", base);
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

    /** A task's fields naming this repository at its base: instance_id, problem_statement and workspace (a map to add to). */
    public Map<String, Object> taskFields(String instanceId, String problem) {
        var node = new HashMap<String, Object>();
        node.put("instance_id", instanceId);
        node.put("problem_statement", problem);
        node.put("workspace", Map.of("type", "git", "path", dir.toString(), "commit", base));
        return node;
    }

    /** The task {@code fields} describe, or an assertion error naming what the parser refused. */
    public static Task parse(Object fields) {
        JsonNode node = fields instanceof JsonNode j ? j : JSON.valueToTree(fields);
        var result = new TaskParser(Path.of("/")).parse(node);
        if (result instanceof TaskParser.Result.Valid v) {
            return v.task();
        }
        throw new AssertionError("the fixture task is invalid: " + result);
    }

    /** Local sandboxes under a fresh folder of /tmp named after {@code what}. */
    public static LocalSandboxProvider sandboxes(String what) {
        return new LocalSandboxProvider(LocalSandboxConfig.defaults()
                .withRoot(Path.of("/tmp", "alice-rl-test-" + what + "-" + UUID.randomUUID().toString().substring(0, 8))));
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
