package ai.openalice.rl.dispatcher.repository;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.time.OffsetDateTime;
import org.junit.jupiter.api.Test;

class SourceQuotaTest {
    @Test
    void retryAfterIsWhenTheOldestSubmissionLeavesTheHour() {
        var now = OffsetDateTime.parse("2026-12-02T12:00:00Z");
        assertEquals(3000, SourceQuota.retryAfter(now.minusMinutes(10), now)); // 60 − 10 minutes
        assertEquals(1, SourceQuota.retryAfter(now.minusSeconds(3599).minusNanos(800_000_000), now)); // 0.2 s: at least 1
        assertEquals(3600, SourceQuota.retryAfter(null, now));
    }
}
