package ai.openalice.rl.bench;

import ai.openalice.rl.cli.imports.DatasetFile;
import ai.openalice.rl.cli.imports.DatasetFormat;
import ai.openalice.rl.cli.imports.RepoSpecs;
import ai.openalice.rl.events.task.Task;
import ai.openalice.rl.events.task.TaskParser;
import ai.openalice.rl.harness.Harness;
import ai.openalice.rl.harness.PythonEnvironments;
import ai.openalice.rl.harness.Verdict;
import ai.openalice.rl.harness.VerifierOptions;
import ai.openalice.rl.sandbox.local.LocalSandboxConfig;
import ai.openalice.rl.sandbox.local.LocalSandboxProvider;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Pattern;

/**
 * {@code bench/run swebench-verified --mirrors DIR}: SWE-bench Verified as it ships, judged here as
 * SWE-bench's harness judges it. Imports every row of the dataset from SWE-bench's own build of the
 * file and from its 13 published columns (checking that both give the same task), then, for every
 * instance whose repository has a mirror in {@code DIR} ({@code <owner>__<name>}, a git directory),
 * verifies the gold patch, the empty patch and a published run's prediction in local sandboxes, one
 * verification per worker ({@code --jobs}, default the machine's cores), and compares each
 * prediction's verdict — resolved, and every listed test's heading — with the run's official
 * {@code report.json}. Resumable: each verdict is appended to {@code results.jsonl} in the output
 * folder and not run again (an infrastructure error is; {@code --report yes} runs nothing). Prints and writes ({@code table.md}) a table
 * per repository and every miss with its reason; {@link SweBenchVerifiedTable} does the counting.
 */
final class SweBenchVerifiedBench {
    static final ObjectMapper JSON = new ObjectMapper();
    /** The columns of the dataset as published; SWE-bench's own build of the file adds log_parser, eval_type, eval_script and image. */
    static final List<String> BUILT_COLUMNS = List.of("log_parser", "eval_type", "eval_script", "image");
    static final Path SHARED = Path.of("..", "shared", "datasets", "swe-bench-verified");
    static final String RUN = "gemini-3-pro-preview.mini-swe-agent-1.15.0";

    private SweBenchVerifiedBench() {}

    /** One verification to run: an instance's task and which patch. */
    record Job(Task task, String kind, String patch) {}

    static void run(String[] args) throws Exception {
        Map<String, String> opts = options(args);
        if (!opts.containsKey("--mirrors")) {
            System.err.println("usage: bench/run swebench-verified --mirrors DIR [--dataset test.parquet] [--predictions FILE --reports FILE]"
                    + " [--out DIR] [--jobs N] [--python-envs DIR] [--only REGEX] [--report yes]");
            System.exit(2);
        }
        Path mirrors = Path.of(opts.get("--mirrors")).toAbsolutePath();
        Path dataset = Path.of(opts.getOrDefault("--dataset", SHARED.resolve("test.parquet").toString()));
        Path predictions = Path.of(opts.getOrDefault("--predictions", SHARED.resolve(RUN + ".predictions.jsonl").toString()));
        Path reports = Path.of(opts.getOrDefault("--reports", SHARED.resolve(RUN + ".reports.json").toString()));
        Path out = Path.of(opts.getOrDefault("--out", ".alice-rl/bench/swebench-verified"));
        int jobs = Integer.parseInt(opts.getOrDefault("--jobs", String.valueOf(Runtime.getRuntime().availableProcessors())));
        Pattern only = Pattern.compile(opts.getOrDefault("--only", ".*"));
        Files.createDirectories(out);

        var table = new SweBenchVerifiedTable(JSON.readTree(reports.toFile()));
        long importStart = System.nanoTime();
        Map<String, Task> tasks = importBothForms(dataset, table);
        System.out.printf("imported %d rows of %s in %.1f s (both forms)%n", tasks.size(), dataset, (System.nanoTime() - importStart) / 1e9);

        Map<String, String> preds = new LinkedHashMap<>();
        for (String line : Files.readAllLines(predictions)) {
            if (!line.isBlank()) {
                JsonNode p = JSON.readTree(line);
                preds.put(p.get("instance_id").asText(), p.path("model_patch").asText(""));
            }
        }
        Path results = out.resolve("results.jsonl");
        if (Files.exists(results)) {
            for (String line : Files.readAllLines(results)) {
                table.record(JSON.readTree(line));
            }
        }
        var todo = new ArrayList<Job>();
        for (Task t : tasks.values()) {
            if (!Files.isDirectory(mirrors.resolve(t.repo().replace("/", "__"))) || !only.matcher(t.instanceId()).find()) {
                continue;
            }
            table.mirrored(t);
            // an instance whose gold verdict is in hand had its workspace made: only the others are checked (a tree walk each)
            String lacks = table.done(t.instanceId(), "gold") ? null : MirrorFiles.missing(mirrors.resolve(t.repo().replace("/", "__")), t.baseCommit());
            if (lacks != null) {
                table.incomplete(t, lacks);
                continue;
            }
            for (var kind : List.of("gold", "empty", "prediction")) {
                String patch = switch (kind) {
                    case "gold" -> t.patch();
                    case "empty" -> "";
                    default -> preds.get(t.instanceId());
                };
                if (patch != null && !(kind.equals("prediction") && patch.isEmpty()) && !table.done(t.instanceId(), kind)) {
                    todo.add(new Job(t, kind, patch));
                }
            }
        }
        if (opts.containsKey("--report")) { // the table of what results.jsonl holds, nothing run
            todo.clear();
        }
        // one environment at a time as far as the workers allow: jobs of one repository version together
        todo.sort(Comparator.comparing((Job j) -> j.task().repo()).thenComparing(j -> String.valueOf(j.task().version()))
                .thenComparing(j -> j.task().instanceId()));
        System.out.printf("%d verifications to run (%d instances with a mirror in %s), %d workers%n", todo.size(), table.mirroredCount(), mirrors, jobs);
        verifyAll(todo, jobs, opts, mirrors, results, table);

        String md = table.markdown();
        System.out.println();
        System.out.println(md);
        Files.writeString(out.resolve("table.md"), md);
        System.out.println("written: " + out.resolve("table.md") + ", " + results);
    }

    /** Every row mapped from SWE-bench's build of the file and from its 13 published columns; the tasks of the first. */
    static Map<String, Task> importBothForms(Path dataset, SweBenchVerifiedTable table) throws IOException {
        RepoSpecs specs = RepoSpecs.bundled();
        var parser = new TaskParser(dataset.toAbsolutePath().getParent());
        var tasks = new LinkedHashMap<String, Task>();
        for (DatasetFile.Row row : DatasetFile.read(dataset)) {
            String repo = row.json() == null ? "?" : row.json().path("repo").asText("?");
            ObjectNode built;
            ObjectNode published;
            try {
                built = DatasetFormat.SWE_BENCH.map(row.json(), specs);
                ObjectNode columns = row.json().deepCopy();
                columns.remove(BUILT_COLUMNS);
                published = DatasetFormat.SWE_BENCH.map(columns, specs);
            } catch (DatasetFormat.Unmappable e) {
                table.refused(repo, row.number() + ": " + e.getMessage());
                continue;
            }
            boolean same = List.of("test_command", "test_report", "toolchain").stream().allMatch(f -> built.path(f).equals(published.path(f)));
            if (!(parser.parse(built) instanceof TaskParser.Result.Valid v)) {
                table.refused(repo, row.number() + ": not a valid task: " + parser.parse(built));
                continue;
            }
            table.imported(repo, same, built.path("instance_id").asText());
            tasks.put(v.task().instanceId(), v.task());
        }
        return tasks;
    }

    private static void verifyAll(List<Job> todo, int jobs, Map<String, String> opts, Path mirrors, Path results, SweBenchVerifiedTable table)
            throws InterruptedException {
        var queue = new ConcurrentLinkedQueue<>(todo);
        var done = new AtomicInteger();
        var envs = new PythonEnvironments(opts.containsKey("--python-envs") ? Path.of(opts.get("--python-envs")) : PythonEnvironments.defaultCache(),
                PythonEnvironments.defaultRoots());
        VerifierOptions options = VerifierOptions.defaults().withMirrors(mirrors).withPython(envs);
        var workers = new ArrayList<Thread>();
        for (int w = 0; w < jobs; w++) {
            workers.add(Thread.ofPlatform().name("verify-" + w).start(() -> {
                try (var sandboxes = new LocalSandboxProvider(LocalSandboxConfig.defaults())) {
                    var harness = new Harness(sandboxes, options);
                    for (Job j; (j = queue.poll()) != null;) {
                        long start = System.nanoTime();
                        Verdict v = harness.verify(j.task(), j.patch());
                        double secs = (System.nanoTime() - start) / 1e9;
                        ObjectNode line = SweBenchVerifiedTable.line(j.task(), j.kind(), v, secs);
                        writeLog(results.resolveSibling("logs").resolve(j.task().instanceId() + "." + j.kind() + ".log"), v);
                        synchronized (table) {
                            table.record(line);
                            append(results, line);
                            System.out.printf("[%d/%d] %s %s: %s%s (%.0f s)%n", done.incrementAndGet(), todo.size(), j.task().instanceId(), j.kind(),
                                    v.status().wire(), v.cause() == null ? "" : " (" + v.cause().wire() + ")", secs);
                        }
                    }
                }
            }));
        }
        for (Thread t : workers) {
            t.join();
        }
    }

    /** The whole test log of a verification, for reading why it went as it went. */
    private static void writeLog(Path file, Verdict v) {
        try {
            Files.createDirectories(file.getParent());
            Files.writeString(file, v.log() == null ? "" : v.log());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static void append(Path results, JsonNode line) {
        try {
            Files.writeString(results, JSON.writeValueAsString(line) + "\n", StandardOpenOption.CREATE, StandardOpenOption.APPEND);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    static Map<String, String> options(String[] args) {
        var m = new LinkedHashMap<String, String>();
        for (int i = 1; i + 1 < args.length; i += 2) {
            m.put(args[i], args[i + 1]);
        }
        return m;
    }
}
