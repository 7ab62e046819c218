package ai.openalice.rl.events.task;

import ai.openalice.rl.events.task.FieldError.Code;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.Reader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;

/**
 * Reads a JSONL task file: one task per line, blank lines ignored. Every bad line is reported with
 * its line number and the fields at fault, and the rest of the file is still read. A second line
 * with an {@code instance_id} already seen in the file is a conflict.
 */
public final class TaskReader {
    private static final ObjectMapper MAPPER = new ObjectMapper();

    private TaskReader() {}

    /** One line of the file and what it held. */
    public sealed interface Line {
        int number();

        /** A valid task. */
        record Valid(int number, Task task) implements Line {}

        /** A rejected line: why, and the text as it was. */
        record Invalid(int number, String taskId, List<FieldError> errors, String text) implements Line {
            public Invalid {
                errors = List.copyOf(errors);
            }
        }
    }

    /** Reads {@code file}; relative workspace paths resolve against its folder. */
    public static List<Line> read(Path file) {
        var lines = new ArrayList<Line>();
        try (Reader r = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
            read(r, file.toAbsolutePath().getParent(), lines::add);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read task file " + file + ": " + e.getMessage(), e);
        }
        return lines;
    }

    /** Streams the lines of {@code reader} to {@code sink}, in order. */
    public static void read(Reader reader, Path baseDir, Consumer<Line> sink) throws IOException {
        var parser = new TaskParser(baseDir);
        Map<String, Integer> seen = new HashMap<>();
        BufferedReader in = reader instanceof BufferedReader b ? b : new BufferedReader(reader);
        String text;
        int number = 0;
        while ((text = in.readLine()) != null) {
            number++;
            if (text.isBlank()) {
                continue;
            }
            sink.accept(parseLine(parser, number, text, seen));
        }
    }

    private static Line parseLine(TaskParser parser, int number, String text, Map<String, Integer> seen) {
        JsonNode node;
        try {
            node = MAPPER.readTree(text);
        } catch (JsonProcessingException e) {
            var loc = e.getLocation();
            String where = loc == null ? "" : " at column " + loc.getColumnNr();
            return new Line.Invalid(number, null,
                    List.of(new FieldError("$", Code.MALFORMED_JSON, "not valid JSON" + where + ": " + e.getOriginalMessage())), text);
        }
        return switch (parser.parse(node)) {
            case TaskParser.Result.Invalid inv -> new Line.Invalid(number, inv.taskId(), inv.errors(), text);
            case TaskParser.Result.Valid v -> {
                Integer first = seen.putIfAbsent(v.task().instanceId(), number);
                yield first == null
                        ? new Line.Valid(number, v.task())
                        : new Line.Invalid(number, v.task().instanceId(), List.of(new FieldError("instance_id", Code.CONFLICT,
                                "'" + v.task().instanceId() + "' already appears on line " + first)), text);
            }
        };
    }
}
