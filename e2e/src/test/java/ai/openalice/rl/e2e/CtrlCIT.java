package ai.openalice.rl.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import ai.openalice.rl.cli.suite.TinySwe;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Ctrl-C as a terminal sends it — SIGINT to the whole foreground process group of {@code ./alice-rl
 * train}, started here in a session of its own — in three phases of a run: while its broker and
 * services start, during RL, during the final evaluation. Each time the run stops everything it
 * started (no process left whose command line names its state folder), prints no stack trace,
 * writes the report and exits 130. (The warm start is followed by the same loop as RL; a build and
 * the report itself are not interrupted here.)
 */
class CtrlCIT {
    static final Path ROOT = Path.of("..").toAbsolutePath().normalize();

    @ParameterizedTest(name = "Ctrl-C at \"{0}\"")
    @CsvSource({"'[train] tasks from', false", "'[rl] step', true", "'[final-eval] ', true"})
    void ctrlCStopsEverythingWritesTheReportAndExits130(String seen, boolean servicesWereUp) throws Exception {
        // under target/ (as TrainCommandIT's): the sandboxes' unprivileged users must reach the state folder
        Path dir = Files.createDirectories(Path.of("target", "ctrlc-" + System.nanoTime()).toAbsolutePath());
        Path state = dir.resolve("state");
        Path tasks = TinySwe.generate(dir.resolve("data"), 8, 0, 5).train();
        Path out = dir.resolve("out");
        Path err = dir.resolve("err");
        Process p = new ProcessBuilder(List.of("setsid", "bash", ROOT.resolve("alice-rl").toString(), "train", "--state", state.toString(),
                "--tasks", tasks.toString(), "--heldout", "2", "--group-size", "2", "--batch-groups", "1", "--minutes", "1", "--probe-every", "0",
                "--probe-k", "1")).redirectOutput(out.toFile()).redirectError(err.toFile()).start();
        try {
            long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(10);
            while (!read(out).contains(seen)) {
                if (!p.isAlive() || System.nanoTime() > deadline) {
                    fail("never saw '" + seen + "'; exit " + (p.isAlive() ? "-" : p.exitValue()) + "\n" + read(out) + read(err));
                }
                Thread.sleep(200);
            }
            // what a terminal does: the signal to the process group (the launcher's session: its pid)
            assertEquals(0, new ProcessBuilder("kill", "-INT", "--", "-" + p.pid()).start().waitFor());
            assertTrue(p.waitFor(5, TimeUnit.MINUTES), "the run did not end after Ctrl-C:\n" + read(out) + read(err));
        } finally {
            p.destroyForcibly();
        }
        String text = read(out) + read(err);
        assertEquals(130, p.exitValue(), text);
        assertTrue(read(err).contains("[train] Ctrl-C: stopping"), text);
        assertTrue(text.lines().noneMatch(l -> l.startsWith("\tat ") || l.startsWith("Caused by") || l.contains("Exception")),
                "no stack trace:\n" + text);
        assertEquals(List.of(), processesNaming(state), "everything the run started is stopped");
        if (servicesWereUp) {
            assertTrue(Files.exists(state.resolve("report/index.html")), "the report, from what exists:\n" + text);
        }
    }

    /** Processes whose command line names {@code state}: the services run from copies in it, the broker keeps its data there. */
    static List<String> processesNaming(Path state) throws IOException {
        var found = new ArrayList<String>();
        try (var procs = Files.list(Path.of("/proc"))) {
            for (Path proc : procs.filter(x -> x.getFileName().toString().matches("\\d+")).toList()) {
                try {
                    String cmd = new String(Files.readAllBytes(proc.resolve("cmdline")), StandardCharsets.UTF_8).replace('\0', ' ');
                    if (cmd.contains(state.toString())) {
                        found.add(proc.getFileName() + ": " + cmd);
                    }
                } catch (IOException gone) {
                    // ended meanwhile
                }
            }
        }
        return found;
    }

    private static String read(Path f) throws IOException {
        return Files.exists(f) ? Files.readString(f) : "";
    }
}
