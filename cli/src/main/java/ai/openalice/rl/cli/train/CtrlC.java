package ai.openalice.rl.cli.train;

import java.io.PrintWriter;
import sun.misc.Signal;
import sun.misc.SignalHandler;

/**
 * Ctrl-C for {@code alice-rl train}, handled rather than left to the JVM's shutdown: the first asks
 * the run to stop — one line says so and the main thread is interrupted, wherever it waits (a
 * status poll, a service's start, the final evaluation), and ends the way a run ends: the services
 * stopped, the report written from what exists, exit status {@link #EXIT}. A second Ctrl-C exits at
 * once (the shutdown hook still stops the services). The services run in sessions of their own
 * ({@code setsid}, {@link Supervisor}), so the terminal's SIGINT reaches this process only, and
 * they are stopped in order rather than all dying under the loop that watches them.
 */
final class CtrlC implements AutoCloseable {
    /** The exit status of a run stopped by Ctrl-C (128 + SIGINT, as a shell reports it). */
    static final int EXIT = 130;
    private static final Signal INT = new Signal("INT");
    private final SignalHandler previous;
    /** Set by the first Ctrl-C (one run per process at a time); the loops that wait look at it besides being interrupted. */
    private static volatile boolean requested;

    private CtrlC(Thread main, PrintWriter err) {
        requested = false;
        previous = Signal.handle(INT, s -> {
            if (requested) {
                err.println("[train] Ctrl-C again: stopping at once");
                err.flush();
                System.exit(EXIT);
            }
            requested = true;
            err.println("[train] Ctrl-C: stopping what the run started, then the report (Ctrl-C again to stop at once)");
            err.flush();
            main.interrupt();
        });
    }

    /** Handles Ctrl-C for the calling thread until {@link #close}. */
    static CtrlC install(PrintWriter err) {
        return new CtrlC(Thread.currentThread(), err);
    }

    boolean requested() {
        return requested;
    }

    /**
     * Throws when Ctrl-C asked the run to stop: called by every loop that waits, since an interrupt
     * alone can be swallowed on the way (an HTTP call that catches what it throws and goes on).
     */
    static void check() throws InterruptedException {
        if (requested) {
            throw new InterruptedException("stopped by Ctrl-C");
        }
    }

    /** Gives SIGINT back to whoever had it (a test's JVM runs other things after a run). */
    @Override
    public void close() {
        Signal.handle(INT, previous);
        Thread.interrupted(); // an interrupt that came too late to matter is not the caller's
    }
}
