package ai.openalice.rl.dispatcher.model;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ai.openalice.rl.events.EventCodec;
import ai.openalice.rl.events.task.FieldError;
import java.util.List;
import org.junit.jupiter.api.Test;

class IntakeOutcomeTest {
    @Test
    void everyCaseAnswersInTheSameShapeNamedByItsStatus() throws Exception {
        var m = EventCodec.mapper();
        assertEquals("{\"line\":3,\"taskId\":\"t\",\"status\":\"added\",\"version\":2,\"errors\":[]}",
                m.writeValueAsString(new IntakeOutcome.Added(3, "t", 2)));
        var conflict = m.readTree(m.writeValueAsString(new IntakeOutcome.Conflict(null, "t", 2)));
        assertEquals("conflict", conflict.get("status").asText());
        assertEquals("task t v2 exists with different content; submit with newVersion=true to add v3", conflict.at("/errors/0/message").asText());
        var rejected = m.readTree(m.writeValueAsString(new IntakeOutcome.Rejected(1, null, List.of(new FieldError("priority",
                FieldError.Code.INVALID_VALUE, "must be at least 1, got 0")))));
        assertEquals("rejected", rejected.get("status").asText());
        assertTrue(rejected.get("version").isNull());
        assertTrue(new IntakeOutcome.Conflict(null, "t", 2).refused());
        assertTrue(new IntakeOutcome.Rejected(null, "t", List.of()).refused());
        assertFalse(new IntakeOutcome.Unchanged(null, "t", 1).refused());
    }
}
