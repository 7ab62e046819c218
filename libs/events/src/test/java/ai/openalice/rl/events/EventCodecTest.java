package ai.openalice.rl.events;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.node.ObjectNode;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/** Malformed input is reported with a reason, never thrown at the consumer. */
class EventCodecTest {

    private static String reason(Topic topic, String json) {
        var d = EventCodec.decode(topic, json.getBytes(StandardCharsets.UTF_8));
        return assertInstanceOf(EventCodec.Decoded.Malformed.class, d, d::toString).reason();
    }

    @Test
    void notJsonIsMalformed() {
        assertTrue(reason(Topic.ROLLOUTS_COMPLETED, "{oops").startsWith("not JSON"));
        assertEquals("empty record value",
                assertInstanceOf(EventCodec.Decoded.Malformed.class, EventCodec.decode(Topic.TASKS_SUBMITTED, new byte[0])).reason());
    }

    @Test
    void eventOnTheWrongTopicIsMalformed() {
        String json = EventCodec.encodeToString(Envelope.of(Samples.all().get(2)));
        assertEquals("type 'rollouts.requested' does not belong on topic rollouts.completed", reason(Topic.ROLLOUTS_COMPLETED, json));
    }

    @Test
    void unknownSchemaVersionIsMalformed() throws Exception {
        var json = (ObjectNode) EventCodec.mapper().readTree(EventCodec.encode(Envelope.of(Samples.all().get(6))));
        json.put("schemaVersion", 2);
        assertTrue(reason(Topic.CHECKPOINTS_PUBLISHED, json.toString()).startsWith("unsupported schemaVersion 2"));
    }

    @Test
    void missingPrimitiveNamesTheField() throws Exception {
        var json = (ObjectNode) EventCodec.mapper().readTree(EventCodec.encode(Envelope.of(Samples.all().get(3))));
        ((ObjectNode) json.get("payload")).remove("policyVersion");
        assertTrue(reason(Topic.ROLLOUTS_COMPLETED, json.toString()).contains("policyVersion"));
    }

    @Test
    void aFieldAddedLaterIsNullInAnOlderProducersEventButAnyOtherMissingFieldIsMalformed() throws Exception {
        var completed = (ObjectNode) EventCodec.mapper().readTree(EventCodec.encode(Envelope.of(Samples.all().get(3))));
        ((ObjectNode) completed.get("payload")).remove("contentHash");
        var d = assertInstanceOf(EventCodec.Decoded.Ok.class, EventCodec.decode(Topic.ROLLOUTS_COMPLETED, completed.toString().getBytes(StandardCharsets.UTF_8)));
        assertEquals(null, ((RolloutCompleted) d.envelope().payload()).contentHash());

        var requested = (ObjectNode) EventCodec.mapper().readTree(EventCodec.encode(Envelope.of(Samples.all().get(2))));
        ((ObjectNode) requested.at("/payload/task")).remove("contentHash"); // nested in the agent's view of the task
        var r = assertInstanceOf(EventCodec.Decoded.Ok.class, EventCodec.decode(Topic.ROLLOUTS_REQUESTED, requested.toString().getBytes(StandardCharsets.UTF_8)));
        assertEquals(null, ((RolloutRequested) r.envelope().payload()).task().contentHash());

        ((ObjectNode) requested.at("/payload/task")).remove("problemStatement");
        assertTrue(reason(Topic.ROLLOUTS_REQUESTED, requested.toString()).contains("problemStatement"));
    }

    @Test
    void contradictoryVerdictIsMalformedWithTheRecordsReason() throws Exception {
        var json = (ObjectNode) EventCodec.mapper().readTree(EventCodec.encode(Envelope.of(Samples.all().get(4))));
        ((ObjectNode) json.get("payload")).put("resolved", false);
        assertTrue(reason(Topic.VERIFICATIONS_COMPLETED, json.toString()).contains("resolved=false contradicts status resolved"));
    }

    @Test
    void unknownFieldsAreToleratedOnRead() throws Exception {
        var json = (ObjectNode) EventCodec.mapper().readTree(EventCodec.encode(Envelope.of(Samples.all().get(6))));
        ((ObjectNode) json.get("payload")).put("addedInAMinorChange", true);
        var d = EventCodec.decode(Topic.CHECKPOINTS_PUBLISHED, json.toString().getBytes(StandardCharsets.UTF_8));
        assertInstanceOf(EventCodec.Decoded.Ok.class, d);
    }

    @Test
    void keysFollowTheTopicRules() {
        var all = Samples.all();
        assertEquals("acme__calc-42", all.get(0).key());
        for (int i = 2; i <= 5; i++) {
            assertEquals(Samples.GROUP.toString(), all.get(i).key(), all.get(i).topic().topicName());
        }
        assertEquals("policy", all.get(6).key());
        assertEquals("trainer", all.get(7).key());
    }

    @Test
    void childSpanKeepsTheTraceAndChangesTheSpan() {
        String root = Traceparent.newRoot();
        String child = Traceparent.childOf(root);
        assertEquals(Traceparent.traceId(root), Traceparent.traceId(child));
        assertNotEquals(root, child);
        assertTrue(Traceparent.isValid(child));
        assertTrue(Traceparent.isValid(Traceparent.childOf("garbage")));
        assertThrows(IllegalArgumentException.class, () -> new Envelope<>(java.util.UUID.randomUUID(), "x", 1,
                java.time.Instant.now(), "00-" + "0".repeat(32) + "-" + "1".repeat(16) + "-01", Samples.all().get(7)));
    }
}
