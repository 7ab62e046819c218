package ai.openalice.rl.testkit;

import java.util.List;

/** The real external engines (vLLM, SkyRL's Tinker server) this test JVM started and keeps for its other tests. */
public final class Engines {
    private Engines() {}

    /** This JVM's child processes that are not such engines: what a test that starts and stops services must leave none of. */
    public static List<ProcessHandle> otherChildren() {
        return ProcessHandle.current().children().filter(p -> !ServerProcess.STARTED.contains(p)).toList();
    }
}
