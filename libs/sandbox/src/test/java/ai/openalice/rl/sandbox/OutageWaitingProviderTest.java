package ai.openalice.rl.sandbox;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ai.openalice.rl.retry.Backoff;
import java.lang.reflect.Proxy;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Outages of the sandbox back end cost a wait, bounded by the grace; other failures fail at once. */
class OutageWaitingProviderTest {
    static final Sandbox SANDBOX = (Sandbox) Proxy.newProxyInstance(Sandbox.class.getClassLoader(), new Class<?>[] {Sandbox.class},
            (p, m, a) -> m.getName().equals("id") ? "s1" : null);

    /** Fails {@code failures} times with {@code reason}, then makes a sandbox. */
    static final class Flaky implements SandboxProvider {
        final SandboxException.Reason reason;
        int failures;
        int calls;

        Flaky(SandboxException.Reason reason, int failures) {
            this.reason = reason;
            this.failures = failures;
        }

        @Override
        public String name() {
            return "kubernetes";
        }

        @Override
        public Sandbox create(SandboxSpec spec) {
            calls++;
            if (failures-- > 0) {
                throw new SandboxException(reason, "the API server did not answer");
            }
            return SANDBOX;
        }

        @Override
        public void close() {}
    }

    final List<Duration> pauses = new ArrayList<>();

    private OutageWaitingProvider waiting(SandboxProvider backend) {
        return new OutageWaitingProvider(backend, Duration.ofSeconds(10),
                () -> Backoff.withoutJitter(Duration.ofSeconds(1), Duration.ofSeconds(4)), pauses::add);
    }

    @Test
    void anOutageShorterThanTheGraceIsWaitedOutWithDoublingPauses() {
        var p = waiting(new Flaky(SandboxException.Reason.BACKEND_UNAVAILABLE, 3));
        assertSame(SANDBOX, p.create(null));
        assertEquals(List.of(Duration.ofSeconds(1), Duration.ofSeconds(2), Duration.ofSeconds(4)), pauses);
        assertEquals(3, p.waits());
        assertTrue(p.available(), "the back end answered last");
    }

    @Test
    void anOutageLongerThanTheGraceFailsAsBeforeAfterWaitingExactlyTheGrace() {
        var backend = new Flaky(SandboxException.Reason.START_FAILED, Integer.MAX_VALUE);
        var p = waiting(backend);
        var e = assertThrows(SandboxException.class, () -> p.create(null));
        // 1 + 2 + 4 (the cap) + 3 (what is left of the 10 s grace) = 10 s, then one last try
        assertEquals(List.of(Duration.ofSeconds(1), Duration.ofSeconds(2), Duration.ofSeconds(4), Duration.ofSeconds(3)), pauses);
        assertEquals(5, backend.calls);
        assertEquals(SandboxException.Reason.START_FAILED, e.reason());
        assertTrue(e.getMessage().contains("the kubernetes sandbox back end failed for 10 s (sandbox-outage-grace PT10S); last: START_FAILED: the API"
                + " server did not answer"), e.getMessage());
        assertFalse(p.available());
    }

    @Test
    void whatIsNotTheBackEndsFaultFailsAtOnce() {
        var backend = new Flaky(SandboxException.Reason.WORKSPACE_UNAVAILABLE, 1);
        var p = waiting(backend);
        var e = assertThrows(SandboxException.class, () -> p.create(null));
        assertEquals(SandboxException.Reason.WORKSPACE_UNAVAILABLE, e.reason());
        assertEquals(1, backend.calls);
        assertTrue(pauses.isEmpty());
        assertTrue(p.available());
    }

    @Test
    void aZeroGraceWaitsForNothing() {
        var backend = new Flaky(SandboxException.Reason.BACKEND_UNAVAILABLE, 1);
        var p = new OutageWaitingProvider(backend, Duration.ZERO,
                () -> Backoff.withoutJitter(Duration.ofSeconds(1), Duration.ofSeconds(4)), pauses::add);
        assertThrows(SandboxException.class, () -> p.create(null));
        assertEquals(1, backend.calls);
        assertTrue(pauses.isEmpty());
    }
}
