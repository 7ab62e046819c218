package ai.openalice.rl.events;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import ai.openalice.rl.events.task.FieldError;
import ai.openalice.rl.events.task.TaskParser;
import ai.openalice.rl.testkit.Mutations;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/**
 * Generated bad input at the two doors every event and task goes through (seeded: a failure
 * reproduces): the event codec on every topic, and the task parser. Nothing throws; every refusal
 * carries a reason (a field error names its field); and the cases whose outcome is known without
 * running the code are checked exactly: a truncated or random-byte record, or one whose type is not
 * its topic's, is refused.
 */
class MalformedInputTest {
    static final int PER_TOPIC = 500;
    static final int TASKS = 3000;

    @Test
    void theCodecRefusesEveryBrokenRecordWithAReasonAndNeverThrows() throws Exception {
        var mutations = new Mutations(20261202L);
        int cases = 0;
        int refused = 0;
        for (EventPayload payload : Samples.all()) {
            Topic topic = Topic.of(payload.getClass());
            JsonNode valid = EventCodec.mapper().readTree(EventCodec.encode(Envelope.of(payload)));
            for (var c : mutations.of(valid, PER_TOPIC)) {
                EventCodec.Decoded<?> decoded = null;
                try {
                    decoded = EventCodec.decode(topic, c.bytes());
                } catch (RuntimeException e) {
                    fail(topic.topicName() + ": " + c.how() + " threw " + e);
                }
                cases++;
                if (decoded instanceof EventCodec.Decoded.Malformed<?> m) {
                    refused++;
                    assertFalse(m.reason() == null || m.reason().isBlank(), topic.topicName() + ": " + c.how() + " refused without a reason");
                } else if (c.how().startsWith("truncated") || c.how().endsWith("random bytes") || c.how().contains("set $.type ")
                        || c.how().contains("removed $.type")) {
                    fail(topic.topicName() + ": " + c.how() + " was taken as a valid event");
                }
            }
            var otherType = (ObjectNode) valid.deepCopy();
            otherType.put("type", topic == Topic.TASKS_SUBMITTED ? "rollouts.requested" : "tasks.submitted");
            var wrong = EventCodec.decode(topic, otherType.toString().getBytes(StandardCharsets.UTF_8));
            assertTrue(assertInstanceOf(EventCodec.Decoded.Malformed.class, wrong).reason().contains("does not belong on topic " + topic.topicName()));
        }
        assertEquals(Samples.all().size() * PER_TOPIC, cases);
        System.out.printf("MalformedInputTest: %d generated records from %d sample events (every topic), %d refused with a reason, none threw%n", cases,
                Samples.all().size(), refused);
    }

    @Test
    void theTaskParserNamesAFieldForEveryRefusalAndNeverThrows() {
        var parser = new TaskParser(Path.of("/data/tasks"));
        var mutations = new Mutations(42L);
        int refused = 0;
        for (var c : mutations.of(Samples.sweBenchTask(), TASKS)) {
            JsonNode node;
            try {
                node = EventCodec.mapper().readTree(c.bytes());
            } catch (IOException notJson) {
                continue; // damaged text: the intake's JSON reading refuses it before the parser (tested in TaskReaderTest)
            }
            TaskParser.Result result = null;
            try {
                result = parser.parse(node);
            } catch (RuntimeException e) {
                fail(c.how() + " threw " + e);
            }
            if (result instanceof TaskParser.Result.Invalid invalid) {
                refused++;
                assertFalse(invalid.errors().isEmpty(), c.how());
                for (FieldError e : invalid.errors()) {
                    assertFalse(e.field() == null || e.field().isBlank() || e.message() == null || e.message().isBlank(), c.how() + ": " + e);
                }
            }
            if (c.how().contains("removed $.instance_id")) {
                var invalid = assertInstanceOf(TaskParser.Result.Invalid.class, result, c.how());
                assertTrue(invalid.errors().stream().anyMatch(e -> e.field().equals("instance_id")), c.how() + ": " + invalid.errors());
            }
        }
        System.out.printf("MalformedInputTest: %d generated tasks, %d refused with named fields, none threw%n", TASKS, refused);
    }
}
