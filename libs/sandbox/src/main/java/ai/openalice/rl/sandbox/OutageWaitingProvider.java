package ai.openalice.rl.sandbox;

import ai.openalice.rl.retry.Backoff;
import java.time.Duration;
import java.util.Set;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;

/**
 * A back end that waits out its own outages: when a sandbox cannot be made because the back end did
 * not answer (the Kubernetes API during a restart) or could not start one (no node schedulable,
 * bubblewrap refused for a moment), {@code create} tries again with doubling pauses until
 * {@code grace} has passed, and only then fails as before. A routine outage costs the episode or the
 * verification a wait, not one of its rollout's attempts; {@link #available()} says whether the
 * last try answered (for a gauge or readiness), {@link #waits()} how many pauses were taken. Other
 * failures (a workspace that does not exist, host I/O) are not the back end's and fail at once.
 */
public final class OutageWaitingProvider implements SandboxProvider {
    /** The reasons a later try can fix. */
    static final Set<SandboxException.Reason> TRANSIENT = Set.of(SandboxException.Reason.BACKEND_UNAVAILABLE, SandboxException.Reason.START_FAILED);

    /** How a pause is taken (tests pass one that only records it). */
    public interface Sleeper {
        void sleep(Duration d) throws InterruptedException;
    }

    private final SandboxProvider backend;
    private final Duration grace;
    private final Supplier<Backoff> pauses;
    private final Sleeper sleeper;
    private final AtomicBoolean available = new AtomicBoolean(true);
    private final AtomicLong waits = new AtomicLong();

    /** {@code pauses} gives each wait its own backoff. */
    public OutageWaitingProvider(SandboxProvider backend, Duration grace, Supplier<Backoff> pauses, Sleeper sleeper) {
        if (grace.isNegative()) {
            throw new IllegalArgumentException("need grace >= 0, got " + grace);
        }
        this.backend = backend;
        this.grace = grace;
        this.pauses = pauses;
        this.sleeper = sleeper;
    }

    /** Pauses under a bound of 1 s doubling to 30 s, with full jitter, taken with {@code Thread.sleep}. */
    public static OutageWaitingProvider of(SandboxProvider backend, Duration grace) {
        return new OutageWaitingProvider(backend, grace, () -> Backoff.of(Duration.ofSeconds(1), Duration.ofSeconds(30)), d -> Thread.sleep(d.toMillis()));
    }

    @Override
    public String name() {
        return backend.name();
    }

    @Override
    public Sandbox create(SandboxSpec spec) {
        Duration waited = Duration.ZERO;
        Backoff backoff = pauses.get();
        while (true) {
            try {
                Sandbox s = backend.create(spec);
                available.set(true);
                return s;
            } catch (SandboxException e) {
                if (!TRANSIENT.contains(e.reason())) {
                    throw e;
                }
                available.set(false);
                if (waited.compareTo(grace) >= 0) {
                    throw new SandboxException(e.reason(), "the " + backend.name() + " sandbox back end failed for " + waited.toSeconds()
                            + " s (sandbox-outage-grace " + grace + "); last: " + e.getMessage(), e);
                }
                Duration pause = backoff.next();
                Duration next = pause.compareTo(grace.minus(waited)) > 0 ? grace.minus(waited) : pause;
                try {
                    sleeper.sleep(next);
                } catch (InterruptedException ie) {
                    Thread.currentThread().interrupt();
                    throw e;
                }
                waits.incrementAndGet();
                waited = waited.plus(next);
            }
        }
    }

    /** False while the back end's last answer was an outage. */
    public boolean available() {
        return available.get();
    }

    /** Pauses taken so far. */
    public long waits() {
        return waits.get();
    }

    @Override
    public void close() {
        backend.close();
    }
}
