package ai.openalice.rl.deploy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ai.openalice.rl.testkit.JsonHttp;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;

/**
 * docker-compose.yml in real containers (issue 58): {@code docker-compose up} of the file as it is,
 * on Debian's Docker that {@code dev/stack docker up} starts with the images {@code dev/stack cluster
 * images} built (the registry images replaced by ALICE_KAFKA_IMAGE and ALICE_POSTGRES_IMAGE, as a
 * user without Docker Hub would). Every container's health check turns healthy; a task submitted to
 * the dispatcher's REST door on 127.0.0.1 is played in the runner's bubblewrap sandboxes inside its
 * privileged container, verified, scored, trained on, and the inference container serves the
 * trainer's checkpoint from the shared artifacts volume; the health checks still hold after, with
 * no container restarted; {@code down -v} leaves no container and no volume. One file added to
 * the stack, as a user would: the runner's policy is the oracle (HelmInstallClusterTest says why).
 * Skipped without {@code -Dalice.docker.host}; {@code dev/test} runs it in the cluster suite.
 */
@EnabledIfSystemProperty(named = "alice.docker.host", matches = ".+")
class ComposeStackClusterTest {
    static final String PROJECT = "alice-rl-it";
    static final Path ROOT = Path.of("..").toAbsolutePath().normalize();
    static final String DOCKER = "/usr/bin/docker";
    static final ObjectMapper JSON = new ObjectMapper();
    static Path override;

    @BeforeAll
    static void up() throws Exception {
        override = Files.createTempFile(Path.of("target"), "compose-oracle", ".yml").toAbsolutePath();
        Files.writeString(override, """
                services:
                  sandbox-runner:
                    environment:
                      RUNNER_POLICY: oracle
                      RUNNER_ORACLE_TASKS: %s
                      RUNNER_ORACLE_FAILURE_PROBABILITY: "0.5"
                """.formatted(ROOT.resolve("examples/tasks/calc.jsonl")));
        compose("up", "-d", "--no-build");
    }

    @AfterAll
    static void down() throws Exception {
        if (override != null) {
            compose("down", "-v", "--remove-orphans");
            Files.deleteIfExists(override);
            String label = "label=com.docker.compose.project=" + PROJECT;
            assertEquals("", docker("ps", "-aq", "--filter", label).strip(), "containers left");
            assertEquals("", docker("volume", "ls", "-q", "--filter", label).strip(), "volumes left");
        }
    }

    @Test
    void theStackComesUpHealthyAndRunsTheLoopToACheckpointServed() throws Exception {
        var containers = containers();
        assertEquals(List.of("inference", "kafka", "postgres", "rubric-prm", "sandbox-runner", "task-dispatcher", "trainer", "verifier"),
                List.copyOf(containers.keySet()));
        awaitHealthy(containers, Duration.ofMinutes(5));

        var task = JSON.readTree(Files.readAllLines(ROOT.resolve("examples/tasks/calc.jsonl")).getFirst());
        ((ObjectNode) task).putObject("workspace").put("type", "dir").put("path", ROOT.resolve("examples/tasks/calc-repo").toString());
        var submitted = http("POST", "http://127.0.0.1:8081/tasks?source=compose-test", task.toString());
        assertEquals(1, submitted.path("accepted").asInt(), submitted.toString());
        long served = servedVersion(Duration.ofMinutes(5));
        assertTrue(served >= 1, "the inference container serves the trainer's checkpoint v" + served);
        JsonNode stats = http("GET", "http://127.0.0.1:8081/stats", null);
        assertTrue(stats.at("/rollouts/scored").asInt() > 0 && stats.at("/groups/train.finished").asInt() > 0, stats.toString());

        for (var c : containers.entrySet()) {
            JsonNode state = JSON.readTree(docker("inspect", "--format", "{{json .State}}", c.getValue()));
            assertEquals("healthy", state.at("/Health/Status").asText(), c.getKey() + ": " + state.at("/Health/Log"));
            assertEquals("0", docker("inspect", "--format", "{{.RestartCount}}", c.getValue()).strip(), c.getKey() + " restarted");
        }
    }

    /** compose service name → container id. */
    private static Map<String, String> containers() throws Exception {
        var out = new TreeMap<String, String>();
        for (String id : compose("ps", "-q").strip().split("\\s+")) {
            out.put(docker("inspect", "--format", "{{index .Config.Labels \"com.docker.compose.service\"}}", id).strip(), id);
        }
        return out;
    }

    private static void awaitHealthy(Map<String, String> containers, Duration within) throws Exception {
        long deadline = System.nanoTime() + within.toNanos();
        var unhealthy = new ArrayList<String>();
        do {
            unhealthy.clear();
            for (var c : containers.entrySet()) {
                if (!docker("inspect", "--format", "{{.State.Health.Status}}", c.getValue()).strip().equals("healthy")) {
                    unhealthy.add(c.getKey());
                }
            }
            if (unhealthy.isEmpty()) {
                return;
            }
            Thread.sleep(2000);
        } while (System.nanoTime() < deadline);
        throw new AssertionError("not healthy after " + within + ": " + unhealthy);
    }

    private static long servedVersion(Duration within) throws Exception {
        long deadline = System.nanoTime() + within.toNanos();
        long version = -1;
        while (System.nanoTime() < deadline && version < 1) {
            Thread.sleep(3000);
            version = http("GET", "http://127.0.0.1:8085/v1/models", null).at("/data/0/policy_version").asLong(-1);
        }
        return version;
    }

    private static JsonNode http(String method, String uri, String body) throws Exception {
        return JsonHttp.send(method, URI.create(uri), body);
    }

    private static String compose(String... args) throws Exception {
        var command = new ArrayList<>(List.of("docker-compose", "-p", PROJECT, "-f", ROOT.resolve("docker-compose.yml").toString(),
                "-f", override.toString()));
        command.addAll(List.of(args));
        return run(command);
    }

    private static String docker(String... args) throws Exception {
        var command = new ArrayList<>(List.of(DOCKER));
        command.addAll(List.of(args));
        return run(command);
    }

    /** Runs a command against the test's Docker with the images built here; its output. */
    private static String run(List<String> command) throws Exception {
        Path errors = Files.createTempFile(Path.of("target"), "compose", ".err");
        var pb = new ProcessBuilder(command).directory(ROOT.toFile()).redirectError(errors.toFile()); // compose's progress: shown on failure
        var env = pb.environment();
        env.put("DOCKER_HOST", System.getProperty("alice.docker.host"));
        env.put("PWD", ROOT.toString()); // the file mounts ${PWD}/examples: the task's workspace path resolves in the containers
        String tag = System.getProperty("alice.docker.tag", "dev");
        env.put("ALICE_REGISTRY", "alice-rl.local");
        env.put("ALICE_TAG", tag);
        env.put("ALICE_KAFKA_IMAGE", "alice-rl.local/kafka:" + tag);
        env.put("ALICE_POSTGRES_IMAGE", "alice-rl.local/postgresql:" + tag);
        var p = pb.start();
        String out = new String(p.getInputStream().readAllBytes());
        int exit = p.waitFor();
        String err = Files.readString(errors);
        Files.delete(errors);
        if (exit != 0) {
            throw new AssertionError(String.join(" ", command) + " failed:\n" + out + err);
        }
        return out;
    }
}
