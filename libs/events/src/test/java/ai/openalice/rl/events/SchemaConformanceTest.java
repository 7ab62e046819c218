package ai.openalice.rl.events;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.networknt.schema.JsonSchema;
import com.networknt.schema.JsonSchemaFactory;
import com.networknt.schema.SchemaLocation;
import com.networknt.schema.SchemaValidatorsConfig;
import com.networknt.schema.SpecVersion;
import com.networknt.schema.ValidationMessage;
import java.util.EnumSet;
import java.util.Set;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/** Every event record, serialised, is valid against its topic's JSON Schema, and round-trips. */
class SchemaConformanceTest {
    private static final String BASE = "https://schemas.openalice.ai/alice-rl/";
    private static final JsonSchemaFactory FACTORY = JsonSchemaFactory.getInstance(SpecVersion.VersionFlag.V202012,
            b -> b.schemaMappers(m -> m.mapPrefix(BASE, "classpath:schemas/")));
    private static final SchemaValidatorsConfig CONFIG = SchemaValidatorsConfig.builder().formatAssertionsEnabled(true).build();

    static JsonSchema schema(Topic topic) {
        return FACTORY.getSchema(SchemaLocation.of(BASE + topic.schemaFile()), CONFIG);
    }

    static Set<ValidationMessage> validate(Topic topic, JsonNode json) {
        return schema(topic).validate(json);
    }

    static Stream<EventPayload> samples() {
        return Samples.all().stream();
    }

    @Test
    void everyTopicHasASample() {
        var covered = Samples.all().stream().map(EventPayload::topic).collect(Collectors.toSet());
        assertEquals(EnumSet.allOf(Topic.class), covered);
    }

    @ParameterizedTest
    @MethodSource("samples")
    void serialisedSampleIsValidAndRoundTrips(EventPayload payload) throws Exception {
        var envelope = Envelope.of(payload);
        byte[] bytes = EventCodec.encode(envelope);
        JsonNode json = EventCodec.mapper().readTree(bytes);

        var errors = validate(envelope.topic(), json);
        assertTrue(errors.isEmpty(), () -> envelope.type() + " violates its schema: " + errors + "\n" + json.toPrettyString());

        var decoded = EventCodec.decode(envelope.topic(), bytes);
        var ok = assertInstanceOf(EventCodec.Decoded.Ok.class, decoded, () -> decoded.toString());
        assertEquals(envelope, ok.envelope());
    }

    @Test
    void schemaRejectsAPayloadWithoutItsKeyField() throws Exception {
        var envelope = Envelope.of(Samples.all().get(3)); // rollouts.completed
        var json = (ObjectNode) EventCodec.mapper().readTree(EventCodec.encode(envelope));
        ((ObjectNode) json.at("/payload/ref")).remove("groupId");
        var errors = validate(Topic.ROLLOUTS_COMPLETED, json);
        assertFalse(errors.isEmpty());
        assertTrue(errors.stream().anyMatch(e -> e.getMessage().contains("groupId")), errors::toString);
    }

    @Test
    void schemaRejectsAWrongTypeAndABadTraceparent() throws Exception {
        var envelope = Envelope.of(Samples.all().get(2)); // rollouts.requested
        var json = (ObjectNode) EventCodec.mapper().readTree(EventCodec.encode(envelope));
        json.put("type", "rollouts.completed");
        json.put("traceparent", "not-a-trace");
        var errors = validate(Topic.ROLLOUTS_REQUESTED, json);
        assertTrue(errors.stream().anyMatch(e -> e.getInstanceLocation().toString().contains("type")), errors::toString);
        assertTrue(errors.stream().anyMatch(e -> e.getInstanceLocation().toString().contains("traceparent")), errors::toString);
    }

    @Test
    void sweBenchInstanceAsShippedIsAValidTaskInTasksSubmitted() throws Exception {
        // FAIL_TO_PASS as a JSON-encoded string, PASS_TO_PASS as an array, an unknown field: all allowed.
        var envelope = Envelope.of(new TaskSubmitted("swe-bench", Samples.sweBenchTask(), false, null));
        var json = EventCodec.mapper().readTree(EventCodec.encode(envelope));
        assertEquals(Set.of(), validate(Topic.TASKS_SUBMITTED, json));
    }
}
