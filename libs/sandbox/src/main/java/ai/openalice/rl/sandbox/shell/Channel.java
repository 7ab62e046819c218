package ai.openalice.rl.sandbox.shell;

import java.io.InputStream;
import java.io.OutputStream;

/**
 * Where a {@link Supervisor} runs: a process whose stdin takes the requests and whose stdout and
 * stderr carry the commands' output. A local sandbox's is bubblewrap's process; a pod's is one
 * stream of the exec API, open as long as the sandbox.
 */
public interface Channel {
    OutputStream stdin();

    InputStream stdout();

    InputStream stderr();

    /** Whether it still runs. */
    boolean alive();

    /** Ends it and everything it runs, and waits (a few seconds at most) until it has ended. */
    void kill() throws InterruptedException;

    /** Ends it without waiting (closing a sandbox while a command runs). */
    void destroy();

    /** Waits (a few seconds at most) for it to end after {@link #destroy}. */
    void awaitExit();
}
