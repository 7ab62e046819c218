package ai.openalice.rl.servicekit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;

import jakarta.interceptor.InvocationContext;
import java.lang.reflect.Proxy;
import java.net.ConnectException;
import java.util.concurrent.Callable;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class DatabaseOutageWaitTest {
    static InvocationContext context(Callable<Object> proceed) throws Exception {
        var method = DatabaseOutageWaitTest.class.getDeclaredMethod("context", Callable.class);
        return (InvocationContext) Proxy.newProxyInstance(InvocationContext.class.getClassLoader(), new Class<?>[] {InvocationContext.class},
                (p, m, args) -> switch (m.getName()) {
                    case "proceed" -> proceed.call();
                    case "getMethod" -> method;
                    default -> null;
                });
    }

    /** Two outages then success: the call is made three times and its result returned; nothing escapes. */
    @Test
    void anOutageIsWaitedOutAndTheCallMadeAgain() throws Exception {
        var calls = new AtomicInteger();
        Object result = new DatabaseOutageWait().around(context(() -> {
            if (calls.incrementAndGet() <= 2) {
                throw new DatabaseUnavailableException(new ConnectException("Connection refused"));
            }
            return "stored";
        }));
        assertEquals("stored", result);
        assertEquals(3, calls.get());
    }

    /** Any other failure is the consumer's business (dead letter, nack): it passes at once, the call made once. */
    @Test
    void anyOtherFailurePassesThroughAtOnce() throws Exception {
        var calls = new AtomicInteger();
        var bug = new IllegalStateException("a bug");
        var thrown = assertThrows(IllegalStateException.class, () -> new DatabaseOutageWait().around(context(() -> {
            calls.incrementAndGet();
            throw bug;
        })));
        assertSame(bug, thrown);
        assertEquals(1, calls.get());
    }

    /** A bare connection refusal while the database answers (no pool here stands for one that does) is someone else's: it passes through. */
    @Test
    void aRefusalFromElsewhereIsNotADatabaseOutage() throws Exception {
        var calls = new AtomicInteger();
        assertThrows(IllegalStateException.class, () -> new DatabaseOutageWait().around(context(() -> {
            calls.incrementAndGet();
            throw new IllegalStateException("policy server unreachable", new ConnectException("Connection refused"));
        })));
        assertEquals(1, calls.get());
    }
}
