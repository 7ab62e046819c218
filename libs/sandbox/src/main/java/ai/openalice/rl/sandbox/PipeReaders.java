package ai.openalice.rl.sandbox;

import java.io.IOException;
import java.io.InputStream;

/**
 * Threads that read a process's pipe until it closes: platform threads, not virtual ones. A read of
 * a pipe blocks in native code, and on JDK 25 a virtual thread blocked there keeps its carrier; the
 * scheduler has one carrier a core. An open sandbox keeps two such readers on its shell for as long
 * as it lives, so with the readers virtual, a runner of 4 episodes on 2 cores wedged for good: both
 * carriers held by an idle sandbox's readers, and every other episode waiting on a diff whose readers
 * never got to run (a SmolLM2 run, 2026-12-07). A platform thread costs its stack, a few per sandbox.
 */
public final class PipeReaders {
    private PipeReaders() {}

    /** Starts {@code reader} on a daemon platform thread named {@code sandbox-pipe-reader}. */
    public static Thread start(Runnable reader) {
        return Thread.ofPlatform().daemon().name("sandbox-pipe-reader").start(reader);
    }

    /** Reads {@code in} into {@code sink} until it closes (what was read is kept when the process goes), then closes it. */
    public static Thread drain(InputStream in, OutputCollector sink) {
        return start(() -> {
            try (in) {
                sink.drain(in);
            } catch (IOException ignored) {
                // the stream closed with its process
            }
        });
    }
}
