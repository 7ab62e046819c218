package ai.openalice.rl.harness;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The host's JDKs as their release files say, and the one a task asking for a Java version gets. */
class ToolchainsTest {
    @TempDir
    Path root;

    Path jdk(String name, String version) throws Exception {
        Path home = Files.createDirectories(root.resolve(name).resolve("bin"));
        Files.writeString(root.resolve(name).resolve("release"), "IMPLEMENTOR=\"x\"\nJAVA_VERSION=\"" + version + "\"\n");
        Path java = Files.writeString(home.resolve("java"), "#!/bin/sh\n");
        Files.setPosixFilePermissions(java, PosixFilePermissions.fromString("rwxr-xr-x"));
        return root.resolve(name);
    }

    @Test
    void picksTheVersionAskedForElseTheNearestNewer() throws Exception {
        jdk("java-8-openjdk", "1.8.0_402");
        Path seventeen = jdk("java-17-openjdk-amd64", "17.0.15");
        jdk("temurin-25-jdk", "25.0.3");
        Files.createSymbolicLink(root.resolve("java-1.17.0-openjdk-amd64"), seventeen); // Debian's alias: one JDK, not two
        Files.createDirectories(root.resolve("not-a-jdk"));
        var host = Toolchains.scan(root);
        assertEquals(List.of(8, 17, 25), host.jdks().stream().map(Toolchains.Jdk::major).toList());
        assertTrue(host.java(17).orElseThrow().exact());
        assertEquals(8, host.java(8).orElseThrow().jdk().major(), "1.8 is java 8");
        var eleven = host.java(11).orElseThrow();
        assertEquals(17, eleven.jdk().major());
        assertFalse(eleven.exact());
        assertTrue(eleven.describe().contains("java 11 asked; the nearest newer this host has"), eleven.describe());
        assertEquals(25, host.java(21).orElseThrow().jdk().major());
        assertTrue(host.java(26).isEmpty(), "every JDK is older");
    }
}
