package ai.openalice.rl.harness;

import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ai.openalice.rl.events.task.Task;
import ai.openalice.rl.sandbox.HostCommand;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;

/**
 * A small Maven/JUnit 5 project with one seeded bug, its hidden test, and what the sandbox needs
 * to build it offline: a copy of the build's Maven and a local repository, both in /tmp where
 * sandbox users can read them (not under a 0700 home). Used by tests and by bench/.
 */
public final class MavenFixture {
    public static final String POM = """
            <project xmlns="http://maven.apache.org/POM/4.0.0">
              <modelVersion>4.0.0</modelVersion>
              <groupId>fixture</groupId><artifactId>calc</artifactId><version>1</version>
              <properties>
                <maven.compiler.release>21</maven.compiler.release>
                <project.build.sourceEncoding>UTF-8</project.build.sourceEncoding>
              </properties>
              <dependencies>
                <dependency><groupId>org.junit.jupiter</groupId><artifactId>junit-jupiter</artifactId><version>6.0.3</version><scope>test</scope></dependency>
              </dependencies>
              <build><plugins>
                <plugin><artifactId>maven-resources-plugin</artifactId><version>3.3.1</version></plugin>
                <plugin><artifactId>maven-compiler-plugin</artifactId><version>3.14.1</version></plugin>
                <plugin><artifactId>maven-surefire-plugin</artifactId><version>3.5.4</version></plugin>
              </plugins></build>
            </project>
            """;
    public static final String CALC = "package calc;\n\npublic final class Calc {\n    public static int add(int a, int b) {\n        return a - b;\n    }\n\n"
            + "    public static int sub(int a, int b) {\n        return a - b;\n    }\n}\n";
    public static final String CALC_FIXED = CALC.replaceFirst("return a - b;", "return a + b;");
    public static final String TEST = "package calc;\n\nimport static org.junit.jupiter.api.Assertions.assertEquals;\n\nimport org.junit.jupiter.api.Test;\n\n"
            + "class CalcTest {\n    @Test\n    void subtracts() {\n        assertEquals(1, Calc.sub(3, 2));\n    }\n}\n";
    public static final String TEST_HIDDEN = TEST.replace("    @Test\n    void subtracts()",
            "    @Test\n    void addsPositive() {\n        assertEquals(5, Calc.add(2, 3));\n    }\n\n    @Test\n    void subtracts()");


    public final Path work;
    public final Path maven;
    public final Path repository;
    public final FixtureRepo repo;
    public final String testPatch;

    private MavenFixture(Path work, Path maven, Path repository, FixtureRepo repo, String testPatch) {
        this.work = work;
        this.maven = maven;
        this.repository = repository;
        this.repo = repo;
        this.testPatch = testPatch;
    }

    /** Builds the fixture under /tmp; {@code mavenHome} is the Maven running the build (alice.maven.home). */
    public static MavenFixture create(String mavenHome) throws Exception {
        assertNotNull(mavenHome, "alice.maven.home (the build's Maven) is not set; run through ./mvnw");
        Path work = Path.of("/tmp", "alice-rl-maven-fixture-" + UUID.randomUUID().toString().substring(0, 8));
        Path maven = Files.createDirectories(work.resolve("maven"));
        HostCommand.check(List.of("cp", "-a", Path.of(mavenHome).toRealPath() + "/.", maven.toString()), null, Duration.ofMinutes(1));
        HostCommand.check(List.of("chmod", "-R", "a+rX", work.toString()), null, Duration.ofMinutes(1));
        FixtureRepo repo = FixtureRepo.create(Files.createTempDirectory("mvn-fixture"), Map.of(
                "pom.xml", POM, "src/main/java/calc/Calc.java", CALC, "src/test/java/calc/CalcTest.java", TEST));
        String testPatch = repo.patch(Map.of("src/test/java/calc/CalcTest.java", TEST_HIDDEN));
        Path m2 = prepareOfflineRepository(work, maven, repo);
        return new MavenFixture(work, maven, m2, repo, testPatch);
    }

    /**
     * Builds the fixture once on the host, taking its artifacts from the build's own local
     * repository (as a file:// mirror, no network), into a repository the sandbox can read.
     */
    private static Path prepareOfflineRepository(Path work, Path maven, FixtureRepo repo) throws Exception {
        Path m2 = work.resolve("m2");
        Path settings = work.resolve("settings.xml");
        String userRepo = Path.of(System.getProperty("user.home"), ".m2", "repository").toUri().toString();
        Files.writeString(settings, "<settings><mirrors><mirror><id>build-repo</id><mirrorOf>*</mirrorOf><url>" + userRepo
                + "</url></mirror></mirrors></settings>");
        Path clone = work.resolve("prepare");
        HostCommand.check(List.of("git", "clone", "-q", repo.dir.toString(), clone.toString()), null, Duration.ofMinutes(1));
        Files.writeString(clone.resolve("src/test/java/calc/CalcTest.java"), TEST_HIDDEN);
        var r = HostCommand.run(List.of(maven.resolve("bin/mvn").toString(), "-B", "-q", "-s", settings.toString(),
                "-Dmaven.repo.local=" + m2, "-Dmaven.test.failure.ignore=true", "test"), clone, Duration.ofMinutes(5));
        assertTrue(Files.isDirectory(m2.resolve("org/apache/maven/surefire")), "offline repository not prepared: " + r.output());
        HostCommand.check(List.of("chmod", "-R", "a+rX", m2.toString()), null, Duration.ofMinutes(1));
        return m2;
    }

    /** The harness options that expose this fixture's Maven and repository to sandboxes. */
    public VerifierOptions options() {
        return VerifierOptions.defaults().withMaven(repository, maven);
    }

    /** The task: F2P calc.CalcTest#addsPositive, P2P calc.CalcTest#subtracts, Surefire XML reports. */
    public Task task() throws Exception {
        var node = repo.taskFields("fixture__calc-java", "Calc.add(2, 3) returns -1");
        node.put("patch", repo.patch(Map.of("src/main/java/calc/Calc.java", CALC_FIXED)));
        node.put("test_patch", testPatch);
        node.put("test_command", "mvn -q test");
        node.put("test_report", Map.of("format", "junit-xml", "path", "target/surefire-reports/TEST-*.xml"));
        node.put("FAIL_TO_PASS", List.of("calc.CalcTest#addsPositive"));
        node.put("PASS_TO_PASS", List.of("calc.CalcTest#subtracts"));
        node.put("limits", Map.of("test_timeout_s", 240));
        return FixtureRepo.parse(node);
    }
}
