package ai.openalice.rl.events.task;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class TaskReaderTest {
    private static String task(String id) {
        return "{\"instance_id\":\"" + id + "\",\"problem_statement\":\"p\",\"FAIL_TO_PASS\":[\"t1\"],"
                + "\"workspace\":{\"type\":\"dir\",\"path\":\"repos/" + id + "\"},"
                + "\"test_command\":\"python -m unittest -v\",\"test_report\":{\"format\":\"unittest\"}}";
    }

    @Test
    void badLinesAreReportedByNumberAndFieldAndTheRestIsRead(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("tasks.jsonl");
        Files.writeString(file, String.join("\n",
                task("a-1"),
                "",
                "{\"instance_id\": \"b-2\", \"problem_statement\": ",
                task("c-3").replace("\"python -m unittest -v\"", "42"),
                task("a-1"),
                task("d-4")) + "\n");

        List<TaskReader.Line> lines = TaskReader.read(file);

        assertEquals(List.of(1, 3, 4, 5, 6), lines.stream().map(TaskReader.Line::number).toList());
        var first = assertInstanceOf(TaskReader.Line.Valid.class, lines.get(0));
        assertEquals(dir.resolve("repos/a-1").toString(), ((WorkspaceSpec.Dir) first.task().workspace()).path());

        var malformed = assertInstanceOf(TaskReader.Line.Invalid.class, lines.get(1));
        assertEquals("$", malformed.errors().getFirst().field());
        assertEquals(FieldError.Code.MALFORMED_JSON, malformed.errors().getFirst().code());
        assertTrue(malformed.errors().getFirst().message().contains("column"), malformed.errors().toString());

        var wrongType = assertInstanceOf(TaskReader.Line.Invalid.class, lines.get(2));
        assertEquals("c-3", wrongType.taskId());
        assertEquals(List.of(new FieldError("test_command", FieldError.Code.WRONG_TYPE, "must be a string, got a number (42)")),
                wrongType.errors());

        var duplicate = assertInstanceOf(TaskReader.Line.Invalid.class, lines.get(3));
        assertEquals(FieldError.Code.CONFLICT, duplicate.errors().getFirst().code());
        assertEquals("'a-1' already appears on line 1", duplicate.errors().getFirst().message());

        assertInstanceOf(TaskReader.Line.Valid.class, lines.get(4));
    }
}
