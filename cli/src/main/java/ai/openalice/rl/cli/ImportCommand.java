package ai.openalice.rl.cli;

import ai.openalice.rl.cli.imports.DatasetFile;
import ai.openalice.rl.cli.imports.DatasetFormat;
import ai.openalice.rl.cli.imports.RepoSpecs;
import ai.openalice.rl.events.task.TaskParser;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/** {@code alice-rl tasks import}: a dataset as it ships (JSONL, Parquet, CSV) to alice-rl tasks. */
@Command(name = "import", mixinStandardHelpOptions = true,
        description = "Turn dataset rows into tasks: every row that cannot be mapped or is not a valid task is reported as FILE:ROW: field:"
                + " reason, and the rest is written to --out. Exit 0 when every row was imported, 1 when any was rejected, 2 when a file"
                + " cannot be read.")
final class ImportCommand implements Callable<Integer> {
    @Spec
    CommandSpec spec;

    @Option(names = "--from", required = true, paramLabel = "FORMAT",
            description = "swe-bench, swe-bench-lite, swe-bench-verified, swe-bench-multilingual, swe-gym, swe-smith, swe-polybench, multi-swe-bench or swe-rebench.")
    String from;

    @Option(names = "--workspace", defaultValue = "mirror", paramLabel = "mirror|image",
            description = "mirror (default): repo and base_commit, checked out from --mirrors in local sandboxes; image: the dataset's published"
                    + " container image of each instance, for Kubernetes sandboxes. A row's own workspace field always wins.")
    String workspace;

    @Parameters(paramLabel = "FILE", arity = "1..*", description = "Dataset files: .jsonl, .parquet or .csv.")
    List<Path> files;

    @Option(names = "--out", required = true, paramLabel = "FILE", description = "The task file to write (JSONL).")
    Path out;

    @Option(names = "--specs", paramLabel = "FILE", description = "A repository spec table to use instead of the bundled one.")
    Path specsFile;

    @Override
    public Integer call() throws IOException {
        PrintWriter stdout = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        DatasetFormat format;
        RepoSpecs specs;
        try {
            format = DatasetFormat.of(from);
            if (!workspace.equals("mirror") && !workspace.equals("image")) {
                throw new IllegalArgumentException("--workspace: '" + workspace + "' is neither mirror nor image");
            }
            specs = specsFile == null ? RepoSpecs.bundled() : RepoSpecs.read(specsFile);
        } catch (IllegalArgumentException | IOException e) {
            err.println(e.getMessage());
            return TasksCommand.UNREADABLE;
        }
        var lines = new ArrayList<String>();
        int rejected = 0;
        ObjectMapper json = new ObjectMapper();
        for (Path file : files) {
            List<DatasetFile.Row> rows;
            try {
                rows = DatasetFile.read(file);
            } catch (IOException e) {
                err.println(e.getMessage());
                return TasksCommand.UNREADABLE;
            }
            var parser = new TaskParser(file.toAbsolutePath().getParent());
            for (DatasetFile.Row row : rows) {
                List<String> problems = problems(format, specs, workspace.equals("image"), parser, row, lines, json);
                problems.forEach(p -> stdout.printf("%s:%d: %s%n", file, row.number(), p));
                rejected += problems.isEmpty() ? 0 : 1;
            }
        }
        Path tmp = out.resolveSibling(out.getFileName() + ".tmp");
        Files.write(tmp, lines);
        Files.move(tmp, out, StandardCopyOption.REPLACE_EXISTING);
        stdout.printf("%d imported, %d rejected -> %s%n", lines.size(), rejected, out);
        stdout.flush();
        return rejected == 0 ? TasksCommand.ALL_VALID : TasksCommand.SOME_REJECTED;
    }

    /** Maps and validates one row, adding it to {@code lines} when it is a task; the problems otherwise. */
    private static List<String> problems(DatasetFormat format, RepoSpecs specs, boolean image, TaskParser parser, DatasetFile.Row row,
            List<String> lines, ObjectMapper json) throws IOException {
        if (row.error() != null) {
            return List.of("$: " + row.error());
        }
        try {
            var task = format.map(row.json(), specs);
            if (image && !task.has("workspace")) {
                task.set("workspace", format.image(task));
            }
            return switch (parser.parse(task)) {
                case TaskParser.Result.Valid v -> {
                    lines.add(json.writeValueAsString(task));
                    yield List.of();
                }
                case TaskParser.Result.Invalid inv -> inv.errors().stream().map(Object::toString).toList();
            };
        } catch (DatasetFormat.Unmappable e) {
            return List.of(e.field + ": " + e.getMessage());
        } catch (IllegalArgumentException e) {
            return List.of("spec: " + e.getMessage());
        }
    }
}
