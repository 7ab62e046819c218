package ai.openalice.rl.events;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.node.ObjectNode;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.UUID;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Malformed input is reported with a reason, never thrown at the consumer. */
class EventCodecTest {

    private static String reason(Topic topic, String json) {
        var d = EventCodec.decode(topic, json.getBytes(StandardCharsets.UTF_8));
        return assertInstanceOf(EventCodec.Decoded.Malformed.class, d, d::toString).reason();
    }

    @Test
    void aTurnThatStartsANewContextSaysSoAndAnOrdinaryTurnReadsAsBefore() throws Exception {
        var plain = new Turn(1, List.of(5), List.of(6), List.of(-0.5), 0, null, "", 1, 2);
        String json = EventCodec.mapper().writeValueAsString(plain);
        assertTrue(!json.contains("newContext"), json);
        assertEquals(plain, EventCodec.read(EventCodec.mapper().readTree(json), Turn.class), "read as before: newContext false");
        var rewritten = new Turn(1, List.of(1, 5), List.of(6), List.of(-0.5), 0, null, "", 1, 2, true);
        json = EventCodec.mapper().writeValueAsString(rewritten);
        assertTrue(json.contains("\"newContext\":true"), json);
        assertEquals(rewritten, EventCodec.read(EventCodec.mapper().readTree(json), Turn.class));
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
        ((ObjectNode) json.at("/payload/ref")).remove("policyVersion");
        assertTrue(reason(Topic.ROLLOUTS_COMPLETED, json.toString()).contains("policyVersion"));
    }

    /** A rollouts.requested event as the previous release wrote it (schema v1: the header's fields flat in the payload). */
    static final String V1_REQUESTED = """
            {"eventId":"5d0c6f1e-2b3a-4c5d-8e9f-0a1b2c3d4e5f","type":"rollouts.requested","schemaVersion":1,
             "occurredAt":"2026-11-30T02:00:00Z","traceparent":"00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01",
             "payload":{"taskId":"acme__calc-42","groupId":"4f1c2a8e-9b7d-4e21-8c3a-1d2e3f4a5b6c","rolloutId":"0a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d",
               "policyVersion":3,"groupSize":8,"memberIndex":5,"attempt":2,"mode":"eval","evalRunId":"7e57a11c-0000-4000-8000-000000000001",
               "task":{"taskId":"acme__calc-42","taskVersion":4,"problemStatement":"add(2, 3) returns -1; expected 5.",
                       "workspace":{"type":"git","path":"/srv/mirrors/acme__calc","commit":"3f2a1b0c"},
                       "limits":{"max_steps":50,"max_context_tokens":null,"episode_timeout_s":300,"test_timeout_s":300}},
               "sampling":{"temperature":0.7,"topP":1.0,"maxTokensPerTurn":256,"seed":17},
               "deadline":"2026-11-30T03:00:00Z"}}""";

    @Test
    void aVersionOneRequestIsReadWithItsFlatFieldsLiftedIntoTheHeader() {
        var d = assertInstanceOf(EventCodec.Decoded.Ok.class, EventCodec.decode(Topic.ROLLOUTS_REQUESTED, V1_REQUESTED.getBytes(StandardCharsets.UTF_8)));
        var r = (RolloutRequested) d.envelope().payload();
        var expected = new RolloutRef("acme__calc-42", 4, null, Samples.GROUP, Samples.ROLLOUT, 5, 2, 8, 3, RolloutRef.Mode.EVAL,
                UUID.fromString("7e57a11c-0000-4000-8000-000000000001"), new RolloutRef.Sampling(0.7, 1.0, 256, 17L));
        assertEquals(expected, r.ref());
        assertEquals(null, r.task().contentHash()); // that producer predated tasks.accepted: the field added later reads as null
        assertEquals(2, d.envelope().schemaVersion());
    }

    @Test
    void aVersionOneEventWithoutTheWholeHeaderIsRefusedNamingWhatItLacks() throws Exception {
        var json = (ObjectNode) EventCodec.mapper().readTree(EventCodec.encode(Envelope.of(Samples.all().get(3))));
        json.put("schemaVersion", 1);
        String why = reason(Topic.ROLLOUTS_COMPLETED, json.toString());
        assertTrue(why.startsWith("schemaVersion 1 of rollouts.completed lacks the rollout header's mode, member index and sampling"), why);
        json.put("schemaVersion", 3);
        assertTrue(reason(Topic.ROLLOUTS_COMPLETED, json.toString()).startsWith("unsupported schemaVersion 3 of rollouts.completed (this reader knows 1 and 2)"));
    }

    @Test
    void aRequestWhoseTaskIsNotItsHeadersIsMalformed() throws Exception {
        var requested = (ObjectNode) EventCodec.mapper().readTree(EventCodec.encode(Envelope.of(Samples.all().get(2))));
        ((ObjectNode) requested.at("/payload/task")).put("taskVersion", 2);
        assertTrue(reason(Topic.ROLLOUTS_REQUESTED, requested.toString()).contains("is not the header's acme__calc-42 v1"));
        ((ObjectNode) requested.at("/payload/task")).remove("problemStatement");
        assertTrue(reason(Topic.ROLLOUTS_REQUESTED, requested.toString()).contains("problemStatement"));
    }

    @Test
    void anEvaluationHeaderNamesItsRunAndATrainingHeaderNone() {
        var sampling = new RolloutRef.Sampling(0.7, 1.0, 64, null);
        assertThrows(IllegalArgumentException.class, () -> new RolloutRef("t", 1, null, Samples.GROUP, Samples.ROLLOUT, 0, 1, 1, 0,
                RolloutRef.Mode.EVAL, null, sampling));
        assertThrows(IllegalArgumentException.class, () -> new RolloutRef("t", 1, null, Samples.GROUP, Samples.ROLLOUT, 0, 1, 1, 0,
                RolloutRef.Mode.TRAIN, Samples.ROLLOUT, sampling));
        assertThrows(IllegalArgumentException.class, () -> new RolloutRef("t", 1, null, Samples.GROUP, Samples.ROLLOUT, 8, 1, 8, 0,
                RolloutRef.Mode.TRAIN, null, sampling)); // members are 0..7
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
        assertThrows(IllegalArgumentException.class, () -> new Envelope<>(UUID.randomUUID(), "x", 1,
                Instant.now(), "00-" + "0".repeat(32) + "-" + "1".repeat(16) + "-01", Samples.all().get(7)));
    }
}
