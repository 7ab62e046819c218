package ai.openalice.rl.sandbox.kubernetes;

import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class KubernetesSandboxConfigTest {

    @Test
    void runnerIdMustBeALabelValue() {
        assertDoesNotThrow(() -> KubernetesSandboxConfig.defaults("sandboxes", "runner-0.alice_rl"));
        assertDoesNotThrow(() -> KubernetesSandboxConfig.defaults("sandboxes", "r".repeat(63)));
        for (String bad : new String[] {"r".repeat(64), "runner/0", "-runner", "runner-", "", "node 1"}) {
            var e = assertThrows(IllegalArgumentException.class, () -> KubernetesSandboxConfig.defaults("sandboxes", bad), bad);
            assertTrue(e.getMessage().contains("runner id '" + bad + "'") && e.getMessage().contains("runner.id"), e.getMessage());
        }
    }

    @Test
    void namespaceMustBeADnsLabel() {
        for (String bad : new String[] {"Sandboxes", "alice_rl", "n".repeat(64), "-x"}) {
            var e = assertThrows(IllegalArgumentException.class, () -> KubernetesSandboxConfig.defaults(bad, "runner-0"), bad);
            assertTrue(e.getMessage().contains("namespace '" + bad + "'"), e.getMessage());
        }
    }

    @Test
    void warmPoolCannotBeNegative() {
        var e = assertThrows(IllegalArgumentException.class, () -> KubernetesSandboxConfig.defaults("sandboxes", "runner-0").withWarmPoolSize(-1));
        assertTrue(e.getMessage().contains("-1"), e.getMessage());
    }
}
