package ai.openalice.rl.events;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ai.openalice.rl.events.task.FieldError;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;

/** A record that decodes to the wrong types is dead-lettered with the path of the field at fault, as a person would write it. */
class DecodeReasonsTest {
    static String reason(ObjectNode envelope) {
        var d = EventCodec.<TaskRejected>decode(Topic.TASKS_REJECTED, envelope.toString().getBytes(StandardCharsets.UTF_8));
        assertTrue(d instanceof EventCodec.Decoded.Malformed<TaskRejected>, "decoded: " + envelope);
        return ((EventCodec.Decoded.Malformed<TaskRejected>) d).reason();
    }

    @Test
    void theFieldAtFaultIsNamedByItsPath() throws Exception {
        var ok = Envelope.of(new TaskRejected("rest", "a__b-1", List.of(new FieldError("repo", FieldError.Code.MISSING, "required"),
                new FieldError("split", FieldError.Code.INVALID_VALUE, "no")), "{}", TaskRejected.Origin.rest()));
        var json = (ObjectNode) EventCodec.mapper().readTree(EventCodec.encode(ok));

        var arrayElement = json.deepCopy();
        ((ObjectNode) arrayElement.at("/payload/reasons/1")).put("code", "no_such_code");
        assertTrue(reason(arrayElement).startsWith("payload.reasons[1].code: "), reason(arrayElement));

        var field = json.deepCopy();
        ((ObjectNode) field.at("/payload/origin")).put("partition", "first");
        assertTrue(reason(field).startsWith("payload.origin.partition: "), reason(field));

        var top = json.deepCopy();
        top.put("payload", "not an object");
        assertTrue(reason(top).startsWith("payload: "), reason(top));
        assertEquals("not a JSON object", ((EventCodec.Decoded.Malformed<?>) EventCodec.decode(Topic.TASKS_REJECTED, "[1]".getBytes())).reason());
    }
}
