package ai.openalice.rl.cli;

import ai.openalice.rl.cli.suite.TinySwe;
import ai.openalice.rl.events.task.FieldError;
import ai.openalice.rl.events.task.Task;
import ai.openalice.rl.events.task.TaskReader;
import ai.openalice.rl.events.task.WorkspaceSpec;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeSet;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/** {@code alice-rl tasks ...}: work with task files. */
@Command(name = "tasks", description = "Work with task files (JSONL, SWE-bench compatible).",
        subcommands = {TasksCommand.Validate.class, TasksCommand.Generate.class, ImportCommand.class})
final class TasksCommand {

    /** Exit codes of {@code tasks validate}. */
    static final int ALL_VALID = 0;
    static final int SOME_REJECTED = 1;
    static final int UNREADABLE = 2;

    @Command(name = "validate", mixinStandardHelpOptions = true,
            description = "Check task files line by line: every bad line is reported with its line number, field and reason;"
                    + " the rest of the file is still read. Exit 0 when every task is valid, 1 when any line was rejected,"
                    + " 2 when a file cannot be read.")
    static final class Validate implements Callable<Integer> {
        @Spec
        CommandSpec spec;

        @Parameters(paramLabel = "FILE", arity = "1..*", description = "JSONL task files.")
        List<Path> files;

        @Option(names = "--skip-workspace-check",
                description = "Do not check that local workspace paths (git, dir, tarball; mirrors with --mirrors) exist.")
        boolean skipWorkspaceCheck;

        @Option(names = "--mirrors", paramLabel = "DIR",
                description = "Folder of git mirrors (<owner>__<name>) that tasks without 'workspace' resolve to.")
        Path mirrors;

        @Override
        public Integer call() {
            PrintWriter out = spec.commandLine().getOut();
            PrintWriter err = spec.commandLine().getErr();
            int valid = 0;
            int rejected = 0;
            for (Path file : files) {
                List<TaskReader.Line> lines;
                try {
                    lines = TaskReader.read(file);
                } catch (UncheckedIOException e) {
                    err.println(e.getMessage());
                    return UNREADABLE;
                }
                for (TaskReader.Line line : lines) {
                    List<FieldError> errors = switch (line) {
                        case TaskReader.Line.Invalid inv -> inv.errors();
                        case TaskReader.Line.Valid v -> skipWorkspaceCheck ? List.of() : workspaceErrors(v.task());
                    };
                    if (errors.isEmpty()) {
                        valid++;
                    } else {
                        rejected++;
                        for (FieldError e : errors) {
                            out.printf("%s:%d: %s%n", file, line.number(), e);
                        }
                    }
                }
            }
            out.printf("%d valid, %d rejected%n", valid, rejected);
            out.flush();
            return rejected == 0 ? ALL_VALID : SOME_REJECTED;
        }

        private List<FieldError> workspaceErrors(Task task) {
            var errors = new ArrayList<FieldError>();
            switch (task.workspace()) {
                case WorkspaceSpec.Git g -> requireExists(g.path(), errors);
                case WorkspaceSpec.Dir d -> requireExists(d.path(), errors);
                case WorkspaceSpec.Tarball t -> requireExists(t.path(), errors);
                case WorkspaceSpec.Image i -> { }
                case WorkspaceSpec.Mirror m -> {
                    if (mirrors != null) {
                        requireExists(m.resolve(mirrors).path(), errors);
                    }
                }
            }
            return errors;
        }

        private static void requireExists(String path, List<FieldError> errors) {
            if (!Files.exists(Path.of(path))) {
                errors.add(new FieldError("workspace.path", FieldError.Code.INVALID_VALUE, path + " does not exist"));
            }
        }
    }

    @Command(name = "generate", mixinStandardHelpOptions = true,
            description = "Generate a task suite: --suite tiny-swe writes DIR/train.jsonl, DIR/heldout.jsonl and DIR/repos/ (small Python"
                    + " packages, one seeded bug each, hidden tests, gold patch, oracle trajectory). The same seed gives the same suite.")
    static final class Generate implements Callable<Integer> {
        @Spec
        CommandSpec spec;

        @Option(names = "--suite", defaultValue = "tiny-swe", description = "The suite (only tiny-swe today).")
        String suite;

        @Option(names = "--count", defaultValue = "100", description = "Training tasks (default 100).")
        int count;

        @Option(names = "--heldout", description = "Held-out tasks (default: a quarter of --count, at least 12).")
        Integer heldOut;

        @Option(names = "--seed", defaultValue = "1", description = "Seed (default 1).")
        long seed;

        @Option(names = "--out", required = true, paramLabel = "DIR", description = "Output folder (created; existing files are replaced).")
        Path out;

        @Override
        public Integer call() throws Exception {
            if (!suite.equals("tiny-swe")) {
                spec.commandLine().getErr().println("unknown suite '" + suite + "'; known: tiny-swe");
                return UNREADABLE;
            }
            if (count < 1) {
                spec.commandLine().getErr().println("--count must be at least 1, got " + count);
                return UNREADABLE;
            }
            int held = heldOut != null ? heldOut : Math.max(12, count / 4);
            var w = TinySwe.generate(out, count, held, seed);
            spec.commandLine().getOut().printf("%d training tasks in %s, %d held-out tasks in %s (families held out: %s)%n", w.trainCount(), w.train(),
                    w.heldOutCount(), w.heldOut(), String.join(", ", new TreeSet<>(TinySwe.HELD_OUT_FAMILIES)));
            spec.commandLine().getOut().flush();
            return ALL_VALID;
        }
    }
}
