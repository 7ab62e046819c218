package ai.openalice.rl.servicekit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The batch loop every retention job shares: how many statements run and what they are asked for. */
class RetentionTest {
    /** A table of {@code rows} rows to delete: each statement deletes min(batch, what is left). */
    static Retention.Batch table(long rows, List<Integer> asked) {
        long[] left = {rows};
        return batch -> {
            asked.add(batch);
            int n = (int) Math.min(batch, left[0]);
            left[0] -= n;
            return n;
        };
    }

    @Test
    void batchesUntilOneFindsFewerThanABatch() {
        var asked = new ArrayList<Integer>();
        // 2,500 rows in batches of 1,000: 1,000 + 1,000 + 500, and the short batch ends it
        assertEquals(2500, Retention.drain(null, 1000, Retention.UNBOUNDED, table(2500, asked)));
        assertEquals(List.of(1000, 1000, 1000), asked);
    }

    @Test
    void anExactMultipleTakesOneEmptyStatementToKnowItIsDone() {
        var asked = new ArrayList<Integer>();
        assertEquals(2000, Retention.drain(null, 1000, Retention.UNBOUNDED, table(2000, asked)));
        assertEquals(3, asked.size(), "1,000 + 1,000 + 0");
    }

    @Test
    void aCapLeavesTheRestForTheNextRun() {
        var asked = new ArrayList<Integer>();
        var table = table(10_000, asked);
        assertEquals(3000, Retention.drain(null, 1000, 3, table));
        assertEquals(3, asked.size());
        assertEquals(7000, Retention.drain(null, 1000, Retention.UNBOUNDED, table), "the next run takes what was left");
    }

    @Test
    void nothingDeletedNeedsNoVacuum() {
        // no pool at all: a vacuum would fail on it, and none is due when nothing was deleted
        assertEquals(0, Retention.drain(null, 1000, Retention.UNBOUNDED, table(0, new ArrayList<>()), "s.t"));
    }

    @Test
    void aBatchOrCapOfZeroIsRefused() {
        assertThrows(IllegalArgumentException.class, () -> Retention.drain(null, 0, 1, b -> 0));
        assertThrows(IllegalArgumentException.class, () -> Retention.drain(null, 10, 0, b -> 0));
    }
}
