package ai.openalice.rl.harness;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ai.openalice.rl.sandbox.SandboxSpec;
import ai.openalice.rl.sandbox.WorkspaceSource;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;

/** What the host lends a sandbox for a task's tests — the same for the verifier and the agent. */
class TestEnvironmentTest {
    @Test
    void mavenIsMountedReadOnlyAndReadOfflineThroughAWritableLocalRepository() {
        var e = TestEnvironment.of(Path.of("/srv/m2"), Path.of("/srv/maven"), null, null);
        assertEquals(List.of(new SandboxSpec.ReadOnlyMount(Path.of("/srv/m2"), "/maven-repo"), new SandboxSpec.ReadOnlyMount(Path.of("/srv/maven"),
                "/opt/maven")), e.mounts());
        assertEquals("-Dmaven.repo.local=/tmp/m2 -Dmaven.repo.local.tail=/maven-repo", e.env().get("MAVEN_OPTS"));
        assertEquals("-o -B", e.env().get("MAVEN_ARGS"));
        assertEquals("/opt/maven/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin", e.env().get("PATH"));
        assertFalse(e.env().containsKey("npm_config_cache"));
        var spec = e.applyTo(SandboxSpec.of(new WorkspaceSource.Dir(Path.of("/w"))));
        assertEquals(e.mounts(), spec.mounts());
        assertEquals(e.env(), spec.env());
    }

    @Test
    void withoutHostFoldersOnlyTheJvmLimitsAreSet() {
        var e = TestEnvironment.of(null, null, null, null);
        assertTrue(e.mounts().isEmpty());
        assertTrue(e.env().get("JAVA_TOOL_OPTIONS").startsWith("-Xmx1g"), e.env().toString());
        assertFalse(e.env().containsKey("MAVEN_OPTS") || e.env().containsKey("PATH"), "the sandbox's own PATH stays: " + e.env());
    }
}
