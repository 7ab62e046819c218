package ai.openalice.rl.core.staleness;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.Map;
import org.junit.jupiter.api.Test;

class StalenessTest {

    @Test
    void boundAndBookkeeping() {
        var s = new Staleness(2);
        assertEquals(new Staleness.Verdict.Fresh(2), s.account(5, 7));
        assertEquals(new Staleness.Verdict.Fresh(0), s.account(7, 7));
        assertEquals(new Staleness.Verdict.Fresh(0), s.account(7, 7));
        assertEquals(new Staleness.Verdict.Stale(3, 2), s.account(4, 7));
        assertEquals(Map.of(0L, 2L, 2L, 1L), s.usedHistogram());
        assertEquals(Map.of(3L, 1L), s.rejectedHistogram());
        assertEquals("sample policy v8 is newer than the current v7",
                assertThrows(IllegalArgumentException.class, () -> s.check(8, 7)).getMessage());
    }
}
