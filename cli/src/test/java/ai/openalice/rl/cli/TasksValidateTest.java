package ai.openalice.rl.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/** {@code alice-rl tasks validate} on the example files shipped in examples/tasks. */
class TasksValidateTest {
    private static final Path EXAMPLES = Path.of("..", "examples", "tasks").toAbsolutePath().normalize();

    private record Run(int exit, List<String> out) {}

    private static Run run(String... args) {
        var out = new StringWriter();
        var cmd = new CommandLine(new AliceRl()).setOut(new PrintWriter(out)).setErr(new PrintWriter(out));
        int exit = cmd.execute(args);
        return new Run(exit, out.toString().lines().toList());
    }

    @Test
    void exampleSuiteIsValid() {
        var r = run("tasks", "validate", EXAMPLES.resolve("calc.jsonl").toString());
        assertEquals(List.of("2 valid, 0 rejected"), r.out());
        assertEquals(TasksCommand.ALL_VALID, r.exit());
    }

    @Test
    void brokenFileNamesLineFieldAndReasonAndReadsTheRest() throws Exception {
        String file = EXAMPLES.resolve("broken.jsonl").toString();
        var r = run("tasks", "validate", file);
        assertEquals(TasksCommand.SOME_REJECTED, r.exit());
        // Line 2 is cut inside a string: the parser hits the end of input one column past its last character.
        int endColumn = Files.readAllLines(Path.of(file)).get(1).length() + 1;
        assertEquals(file + ":2: $: not valid JSON at column " + endColumn + ": Unexpected end-of-input: was expecting closing quote for a string value"
                + " (malformed_json)", r.out().get(0));
        assertEquals(file + ":3: test_report.format: 'tap' is not one of junit-xml, unittest, pytest, log (unknown_type)", r.out().get(1));
        assertEquals(file + ":3: limits.max_steps: must be >= 1, got 0 (invalid_value)", r.out().get(2));
        assertEquals(file + ":4: workspace.path: " + EXAMPLES.resolve("no-such-repo") + " does not exist (invalid_value)", r.out().get(3));
        assertEquals("1 valid, 3 rejected", r.out().get(4));
    }

    @Test
    void missingFileIsAnInputError() {
        var r = run("tasks", "validate", "/nonexistent/tasks.jsonl");
        assertEquals(TasksCommand.UNREADABLE, r.exit());
        assertEquals("cannot read task file /nonexistent/tasks.jsonl: /nonexistent/tasks.jsonl", r.out().getFirst());
    }
}
