package ai.openalice.rl.cli;

import ai.openalice.rl.events.VerificationStatus;
import ai.openalice.rl.events.task.Task;
import ai.openalice.rl.events.task.TaskParser;
import ai.openalice.rl.events.task.TaskReader;
import ai.openalice.rl.harness.Verdict;
import ai.openalice.rl.sandbox.SandboxException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import picocli.CommandLine.ArgGroup;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** {@code alice-rl verify}: the verifier harness on one task and one patch, verdict as JSON on stdout. */
@Command(name = "verify", mixinStandardHelpOptions = true,
        description = "Verify a patch against a task's hidden tests in a fresh local sandbox and print the verdict as JSON."
                + " Exit 0 whenever a verdict was reached (resolved or not), 2 for bad input, 3 for an infrastructure error.")
final class VerifyCommand implements Callable<Integer> {
    static final int VERDICT = 0;
    static final int BAD_INPUT = 2;
    static final int INFRA_ERROR = 3;

    @Spec
    CommandSpec spec;

    @Option(names = "--task", required = true, paramLabel = "FILE",
            description = "The task: a JSON object, or a JSONL file (with --instance when it holds several).")
    Path taskFile;

    @Option(names = "--instance", paramLabel = "ID", description = "Which instance_id of a JSONL task file.")
    String instance;

    @ArgGroup(exclusive = true, multiplicity = "1")
    PatchChoice patch;

    static final class PatchChoice {
        @Option(names = "--patch", paramLabel = "FILE", description = "The candidate patch (unified diff); - for stdin.")
        String file;

        @Option(names = "--gold", description = "Use the task's own gold patch.")
        boolean gold;

        @Option(names = "--empty", description = "Verify the unchanged repository.")
        boolean empty;
    }

    @picocli.CommandLine.Mixin
    LocalVerifier verifier;

    @Override
    public Integer call() throws IOException {
        PrintWriter out = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        Task task;
        String candidate;
        try {
            verifier.options(); // an unknown flaky rule is bad input
            task = readTask(err);
            if (task == null) {
                return BAD_INPUT;
            }
            candidate = patch.gold ? nullToEmpty(task.patch()) : patch.empty ? "" : readPatch();
            if (patch.gold && (task.patch() == null || task.patch().isBlank())) {
                err.println("--gold: task " + task.instanceId() + " has no 'patch' field");
                return BAD_INPUT;
            }
        } catch (IllegalArgumentException | IOException e) {
            err.println(e.getMessage());
            return BAD_INPUT;
        }
        Verdict v;
        try {
            v = verifier.run(harness -> harness.verify(task, candidate));
        } catch (SandboxException e) {
            err.println("infrastructure error: " + e.getMessage());
            return INFRA_ERROR;
        }
        out.println(toJson(v));
        out.flush();
        if (v.status() == VerificationStatus.INFRA_ERROR) {
            err.println("infrastructure error: " + v.reason());
            return INFRA_ERROR;
        }
        return VERDICT;
    }

    private Task readTask(PrintWriter err) throws IOException {
        if (!Files.isRegularFile(taskFile)) {
            throw new IOException("--task: " + taskFile + " does not exist");
        }
        String text = Files.readString(taskFile, StandardCharsets.UTF_8).strip();
        JsonNode single = null;
        if (text.startsWith("{") && !text.contains("\n{")) {
            try {
                single = new ObjectMapper().readTree(text);
            } catch (IOException e) {
                single = null; // maybe JSONL after all
            }
        }
        if (single != null) {
            return parsed(new TaskParser(taskFile.toAbsolutePath().getParent()).parse(single), err);
        }
        List<TaskReader.Line> lines = TaskReader.read(taskFile);
        List<TaskReader.Line> picked = lines.stream().filter(l -> instance == null || switch (l) {
            case TaskReader.Line.Valid v -> v.task().instanceId().equals(instance);
            case TaskReader.Line.Invalid i -> instance.equals(i.taskId());
        }).toList();
        if (picked.size() != 1) {
            throw new IllegalArgumentException(picked.isEmpty() ? "--instance " + instance + ": no such task in " + taskFile
                    : taskFile + " holds " + picked.size() + " tasks; choose one with --instance");
        }
        return switch (picked.getFirst()) {
            case TaskReader.Line.Valid v -> v.task();
            case TaskReader.Line.Invalid i -> {
                i.errors().forEach(e -> err.println(taskFile + ":" + i.number() + ": " + e));
                yield null;
            }
        };
    }

    private Task parsed(TaskParser.Result r, PrintWriter err) {
        return switch (r) {
            case TaskParser.Result.Valid v -> v.task();
            case TaskParser.Result.Invalid i -> {
                i.errors().forEach(e -> err.println(taskFile + ": " + e));
                yield null;
            }
        };
    }

    private String readPatch() throws IOException {
        if (patch.file.equals("-")) {
            return new String(System.in.readAllBytes(), StandardCharsets.UTF_8);
        }
        Path p = Path.of(patch.file);
        if (!Files.isRegularFile(p)) {
            throw new IOException("--patch: " + p + " does not exist");
        }
        return Files.readString(p, StandardCharsets.UTF_8);
    }

    private static String nullToEmpty(String s) {
        return s == null ? "" : s;
    }

    /** The last {@code chars} characters of the test output, from a line start where there is one. */
    static String tail(String log, int chars) {
        if (log == null || log.length() <= chars) {
            return log;
        }
        String t = log.substring(log.length() - chars);
        int nl = t.indexOf('\n');
        return nl >= 0 && nl < t.length() - 1 ? t.substring(nl + 1) : t;
    }

    static String toJson(Verdict v) throws IOException {
        var m = new LinkedHashMap<String, Object>();
        m.put("instance_id", v.instanceId());
        m.put("resolved", v.resolved());
        m.put("status", v.status().wire());
        m.put("fail_to_pass", v.failToPass());
        m.put("pass_to_pass", v.passToPass());
        m.put("flaky", v.flaky());
        m.put("flaky_rule", v.flakyRule().name().toLowerCase(Locale.ROOT));
        m.put("runs", v.runs());
        m.put("duration_ms", v.durationMs());
        m.put("reason", v.reason());
        m.put("cause", v.cause() == null ? null : v.cause().wire());
        m.put("exit_code", v.exitCode());
        m.put("toolchain", v.toolchain());
        m.put("log_tail", tail(v.log(), 2000));
        return new ObjectMapper().disable(SerializationFeature.INDENT_OUTPUT).writeValueAsString(m);
    }
}
