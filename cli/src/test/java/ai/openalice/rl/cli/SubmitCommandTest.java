package ai.openalice.rl.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ai.openalice.rl.events.EventCodec;
import ai.openalice.rl.events.TaskRejected;
import ai.openalice.rl.events.TaskSubmitted;
import ai.openalice.rl.events.Topic;
import ai.openalice.rl.testkit.TestStack;
import ai.openalice.rl.testkit.Topics;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/** {@code alice-rl submit} on the real broker: valid lines to tasks.submitted (paths made absolute), bad ones to tasks.rejected, exit 1. */
class SubmitCommandTest {
    static final Path EXAMPLES = Path.of("..", "examples", "tasks").toAbsolutePath().normalize();

    @TempDir
    Path dir;

    @Test
    void validLinesArePublishedAndRejectedOnesNamedWithTheirLine() throws Exception {
        var lines = new ArrayList<>(Files.readAllLines(EXAMPLES.resolve("calc.jsonl")));
        lines.add("{\"instance_id\": \"broken-1\"}");
        Path file = dir.resolve("tasks.jsonl");
        Files.write(file, lines);
        Files.createSymbolicLink(dir.resolve("calc-repo"), EXAMPLES.resolve("calc-repo"));
        String suffix = ".t" + UUID.randomUUID();
        var out = new StringWriter();
        int exit = new CommandLine(new AliceRl()).setOut(new PrintWriter(out)).setErr(new PrintWriter(out))
                .execute("submit", file.toString(), "--kafka", TestStack.kafkaBootstrap(), "--source", "team-x", "--topic-suffix", suffix);
        assertEquals(1, exit, out.toString());
        assertTrue(out.toString().contains("2 accepted, 1 rejected"), out.toString());
        assertTrue(out.toString().contains(file + ":3: problem_statement"), out.toString());

        var submitted = read(Topic.TASKS_SUBMITTED.topicName() + suffix, 2).stream()
                .map(b -> ((EventCodec.Decoded.Ok<TaskSubmitted>) EventCodec.<TaskSubmitted>decode(Topic.TASKS_SUBMITTED, b)).envelope().payload()).toList();
        assertEquals(List.of("example__calc-1", "example__calc-2"), submitted.stream().map(TaskSubmitted::key).sorted().toList());
        assertEquals("team-x", submitted.getFirst().source());
        assertEquals(dir.resolve("calc-repo").toString(), submitted.getFirst().task().at("/workspace/path").asText(),
                "a relative workspace path leaves the machine absolute");
        var rejected = read(Topic.TASKS_REJECTED.topicName() + suffix, 1).stream()
                .map(b -> ((EventCodec.Decoded.Ok<TaskRejected>) EventCodec.<TaskRejected>decode(Topic.TASKS_REJECTED, b)).envelope().payload()).toList();
        assertEquals(1, rejected.size());
        assertEquals("broken-1", rejected.getFirst().taskId());
        assertEquals(3, rejected.getFirst().origin().line());
        assertEquals("{\"instance_id\": \"broken-1\"}", rejected.getFirst().originalPayload());
    }

    @Test
    void anUnreachableBrokerIsExitThreeWithTheAddress() throws Exception {
        Path file = dir.resolve("t.jsonl");
        Files.write(file, List.of(Files.readAllLines(EXAMPLES.resolve("calc.jsonl")).getFirst().replace("\"calc-repo\"", "\"" + EXAMPLES.resolve("calc-repo") + "\"")));
        var out = new StringWriter();
        int exit = new CommandLine(new AliceRl()).setOut(new PrintWriter(out)).setErr(new PrintWriter(out))
                .execute("submit", file.toString(), "--kafka", "127.0.0.1:1", "--kafka-timeout", "PT2S", "--topic-suffix", ".unreachable");
        assertEquals(3, exit, out.toString());
        assertTrue(out.toString().contains("cannot publish to Kafka at 127.0.0.1:1"), out.toString());
    }

    static List<byte[]> read(String topic, int n) {
        return Topics.read(topic, n, Duration.ofSeconds(30)).stream().map(ConsumerRecord::value).toList();
    }
}
