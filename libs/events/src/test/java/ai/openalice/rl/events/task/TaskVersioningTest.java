package ai.openalice.rl.events.task;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;

import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.Test;

class TaskVersioningTest {
    @Test
    void rules() {
        assertEquals(new TaskVersioning.Decision.Store(1), TaskVersioning.decide(null, null, "h1", false));
        assertEquals(new TaskVersioning.Decision.Unchanged(2), TaskVersioning.decide(2, "h1", "h1", true));
        assertEquals(new TaskVersioning.Decision.Conflict(2), TaskVersioning.decide(2, "h1", "h2", false));
        assertEquals(new TaskVersioning.Decision.Store(3), TaskVersioning.decide(2, "h1", "h2", true));
    }

    @Test
    void hashIgnoresKeyOrderButNotContent() throws Exception {
        var m = new ObjectMapper();
        String a = TaskVersioning.contentHash(m.readTree("{\"a\":1,\"b\":{\"x\":[1,2],\"y\":\"z\"}}"));
        String b = TaskVersioning.contentHash(m.readTree("{\"b\":{\"y\":\"z\",\"x\":[1,2]},\"a\":1}"));
        String c = TaskVersioning.contentHash(m.readTree("{\"b\":{\"y\":\"z\",\"x\":[2,1]},\"a\":1}"));
        assertEquals(a, b);
        assertNotEquals(a, c);
        assertEquals(64, a.length());
    }
}
