package ai.openalice.rl.sandbox.local;

import java.nio.file.Path;
import java.util.UUID;

/** Sandbox roots for tests: under /tmp (reachable by sandbox uids, unlike JUnit's 0700 temp dirs). */
final class SandboxRoots {
    private SandboxRoots() {}

    static Path fresh(String name) {
        return Path.of("/tmp", "alice-rl-test-" + name + "-" + UUID.randomUUID().toString().substring(0, 8));
    }
}
