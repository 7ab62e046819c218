package ai.openalice.rl.sandbox.local;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ai.openalice.rl.sandbox.Sandbox;
import ai.openalice.rl.sandbox.SandboxSpec;
import ai.openalice.rl.sandbox.WorkspaceSource;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * More open sandboxes than the machine has cores, each with its shell idle, and every one still
 * runs commands and gives its diff. Each open sandbox has two threads blocked reading its shell's
 * pipes for as long as it lives; on JDK 25 a virtual thread blocked in such a read holds its carrier,
 * so when those readers were virtual threads, a runner with 4 episodes on 2 cores wedged for good:
 * both carriers held by an idle sandbox's readers, every other episode waiting on a diff whose
 * readers never got to run (seen in a SmolLM2 run, 2026-12-07).
 */
class ManyOpenSandboxesTest {
    @TempDir
    Path tmp;

    @Test
    void everyOpenSandboxAnswersWhileTheOthersWait() throws Exception {
        int n = 2 * Runtime.getRuntime().availableProcessors() + 2;
        var provider = new LocalSandboxProvider(LocalSandboxConfig.defaults().withRoot(SandboxRoots.fresh("many")));
        var open = new ArrayList<Sandbox>();
        try (provider) {
            try {
                for (int i = 0; i < n; i++) {
                    Path repo = LocalSandboxTest.repo(tmp.resolve("r" + i));
                    open.add(provider.create(SandboxSpec.of(new WorkspaceSource.Dir(repo)).withEnv(Map.of("I", Integer.toString(i)))));
                }
                assertTimeoutPreemptively(Duration.ofSeconds(120), () -> answerAndDiff(open));
            } finally {
                for (Sandbox s : List.copyOf(open)) {
                    s.close();
                }
            }
        }
    }

    private static void answerAndDiff(List<Sandbox> open) throws Exception {
        for (int i = 0; i < open.size(); i++) { // each sandbox's shell starts with its first command, and then idles
            assertEquals(i + "\n", open.get(i).exec("echo $I", Duration.ofSeconds(30)).stdout());
        }
        // its readers are platform threads (Thread.getAllStackTraces lists no virtual ones): two on each shell
        long readers = Thread.getAllStackTraces().keySet().stream().filter(t -> t.getName().equals("sandbox-pipe-reader")).count();
        assertTrue(readers >= 2L * open.size(), readers + " pipe readers for " + open.size() + " open sandboxes");
        for (int i = 0; i < open.size(); i++) {
            Sandbox s = open.get(i);
            s.writeFile("pkg/calc.py", "def add(a, b):\n    return a + b\n");
            assertTrue(s.diff().contains("+    return a + b\n"), "sandbox " + i);
        }
    }
}
