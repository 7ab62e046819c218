package ai.openalice.rl.cli;

import ai.openalice.rl.auth.Tokens;
import ai.openalice.rl.cli.train.LocalAuth;
import ai.openalice.rl.events.EventCodec;
import ai.openalice.rl.events.task.Task;
import ai.openalice.rl.events.task.TaskReader;
import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code alice-rl eval --tasks FILE --k 16 --checkpoint vN}: an evaluation run through the
 * dispatcher ({@code POST /evals}), waited for and printed as a table (or {@code --json}).
 */
@Command(name = "eval", mixinStandardHelpOptions = true,
        description = "Run K rollouts per task at a fixed checkpoint and report pass@1, pass@k and best-of-K (PRM, execution, hybrid);"
                + " or, with --predictions, verify SWE-bench predictions locally and write SWE-bench's run report."
                + " Exit 0 when the run finished, 1 when tasks were rejected, 2 on a bad file or answer, 3 when the dispatcher cannot be reached"
                + " or the run did not finish in time.")
final class EvalCommand implements Callable<Integer> {
    @Spec
    CommandSpec spec;

    @Option(names = "--tasks", required = true, paramLabel = "FILE", description = "A JSONL task file.")
    Path tasks;

    @Option(names = "--k", defaultValue = "16", description = "Rollouts per task (default 16).")
    int k;

    @Option(names = "--checkpoint", paramLabel = "vN", description = "The policy version to evaluate (vN or N); or --predictions.")
    String checkpoint;

    @Option(names = "--predictions", paramLabel = "FILE",
            description = "SWE-bench predictions (instance_id, model_name_or_path, model_patch; JSONL or a JSON list), verified here in local"
                    + " sandboxes; the report is SWE-bench's (written to --report).")
    Path predictions;

    @Option(names = "--report", paramLabel = "FILE", description = "Where --predictions writes its report (default: <model>.<run-id>.json).")
    Path reportFile;

    @Option(names = "--run-id", defaultValue = "alice-rl", description = "The run id of a --predictions report (default: ${DEFAULT-VALUE}).")
    String runId;

    @picocli.CommandLine.Mixin
    LocalVerifier verifier;

    @Option(names = "--alpha", defaultValue = "0.5", description = "Weight of the execution score in the hybrid selector (default 0.5).")
    double alpha;

    @Option(names = "--dispatcher", defaultValue = "${env:ALICE_DISPATCHER_URL:-http://127.0.0.1:8081}", description = "The task-dispatcher's URL.")
    URI dispatcher;

    @Option(names = "--token", paramLabel = "FILE", defaultValue = "${env:ALICE_TOKEN_FILE}",
            description = "A file holding a bearer token with the operator role (default: $ALICE_TOKEN_FILE, else the token alice-rl train "
                    + "wrote in .alice-rl/train/auth/operator.jwt, if any).")
    Path token;

    @Option(names = "--timeout", defaultValue = "PT2H", description = "How long to wait for the run (ISO-8601 duration).")
    Duration timeout;

    @Option(names = "--json", description = "Print the report as JSON.")
    boolean json;

    @Override
    public Integer call() throws Exception {
        PrintWriter out = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        if (predictions != null) {
            return predictions(out, err);
        }
        if (checkpoint == null) {
            err.println("name what to evaluate: --checkpoint vN (rollouts through the dispatcher) or --predictions FILE (SWE-bench predictions)");
            return 2;
        }
        long version;
        try {
            version = Long.parseLong(checkpoint.startsWith("v") ? checkpoint.substring(1) : checkpoint);
        } catch (NumberFormatException e) {
            err.println("--checkpoint must be vN or N, got '" + checkpoint + "'");
            return 2;
        }
        var body = EventCodec.mapper().createObjectNode().put("k", k).put("policyVersion", version).put("alpha", alpha);
        var array = body.putArray("tasks");
        try {
            for (TaskReader.Line line : TaskReader.read(tasks)) {
                switch (line) {
                    case TaskReader.Line.Valid v -> array.add(TaskFiles.portable(v.task()));
                    case TaskReader.Line.Invalid inv -> {
                        inv.errors().forEach(e -> out.printf("%s:%d: %s%n", tasks, inv.number(), e));
                        out.flush();
                        return 1;
                    }
                }
            }
        } catch (UncheckedIOException e) {
            err.println(e.getMessage());
            return 2;
        }
        var http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();
        String bearer = bearer();
        HttpResponse<String> started;
        try {
            started = http.send(request(dispatcher.resolve("/evals"), bearer).header("Content-Type", "application/json")
                    .POST(HttpRequest.BodyPublishers.ofString(body.toString())).build(), HttpResponse.BodyHandlers.ofString());
        } catch (IOException e) {
            err.println("cannot reach the task-dispatcher at " + dispatcher + ": " + e.getMessage());
            return 3;
        }
        if (started.statusCode() != 202) {
            err.println("the task-dispatcher refused the run (" + started.statusCode() + "): " + started.body()
                    + (started.statusCode() == 401 ? "; pass --token FILE (a token with the operator role)" : ""));
            return started.statusCode() == 400 ? 1 : 3;
        }
        String run = EventCodec.mapper().readTree(started.body()).get("evalRunId").asText();
        err.printf("evaluation %s: %d task(s) x %d rollouts at v%d%n", run, array.size(), k, version);
        long deadline = System.nanoTime() + timeout.toNanos();
        JsonNode report;
        do {
            Thread.sleep(2000);
            report = EventCodec.mapper().readTree(http.send(request(dispatcher.resolve("/evals/" + run), bearer).build(),
                    HttpResponse.BodyHandlers.ofString()).body());
        } while (!report.path("state").asText().equals("done") && System.nanoTime() < deadline);
        out.println(json ? report.toPrettyString() : table(report));
        out.flush();
        return report.path("state").asText().equals("done") ? 0 : 3;
    }

    /** The bearer token to send (null: none): {@code --token}, else the one of a local {@code alice-rl train}, if any. */
    private String bearer() throws IOException {
        Path file = token;
        if (file == null) {
            Path local = Path.of(System.getProperty("alice.root", ".")).resolve(".alice-rl/train/auth/operator.jwt");
            file = Files.isReadable(local) ? local : null;
        }
        return file == null ? null : Tokens.read(file);
    }

    private static HttpRequest.Builder request(URI uri, String bearer) {
        var b = HttpRequest.newBuilder(uri);
        return bearer == null ? b : b.header("Authorization", Tokens.authorization(bearer));
    }

    private int predictions(PrintWriter out, PrintWriter err) throws Exception {
        Map<String, PredictionsEval.Prediction> preds;
        var list = new ArrayList<Task>();
        try {
            preds = PredictionsEval.read(predictions);
            verifier.options(); // a folder sandboxes cannot read is bad input, said before any verification
            for (TaskReader.Line line : TaskReader.read(tasks)) {
                switch (line) {
                    case TaskReader.Line.Valid v -> list.add(v.task());
                    case TaskReader.Line.Invalid inv -> {
                        inv.errors().forEach(e -> out.printf("%s:%d: %s%n", tasks, inv.number(), e));
                        out.flush();
                        return 1;
                    }
                }
            }
        } catch (IllegalArgumentException | IOException | UncheckedIOException e) {
            err.println(e.getMessage());
            return 2;
        }
        var report = verifier.run(harness -> PredictionsEval.report(list, preds, (task, patch) -> {
            err.printf("verifying %s%n", task.instanceId());
            err.flush();
            return harness.verify(task, patch);
        }));
        String model = preds.isEmpty() ? "none" : preds.values().iterator().next().model().replace("/", "__");
        Path file = reportFile != null ? reportFile : Path.of(model + "." + runId + ".json");
        Files.writeString(file, report.toPrettyString());
        out.printf("%d instances: %d resolved, %d unresolved, %d empty patches, %d errors, %d incomplete -> %s%n", report.get("total_instances").asInt(),
                report.get("resolved_instances").asInt(), report.get("unresolved_instances").asInt(), report.get("empty_patch_instances").asInt(),
                report.get("error_instances").asInt(), report.get("incomplete_ids").size(), file);
        out.flush();
        return 0;
    }

    static String table(JsonNode report) {
        var sb = new StringBuilder();
        String fmt = "%-40s %4s %4s %7s %7s %7s %7s %7s%n";
        sb.append(String.format(fmt, "task", "n", "c", "pass@1", "pass@k", "bok.prm", "bok.exe", "bok.hyb"));
        for (JsonNode t : report.path("tasks")) {
            sb.append(String.format(fmt, t.path("taskId").asText(), t.path("n").asText(), t.path("c").asText("-"), num(t, "pass@1"), num(t, "pass@k"),
                    num(t, "bestOfK.prm"), num(t, "bestOfK.exec"), num(t, "bestOfK.hybrid")));
        }
        JsonNode o = report.path("overall");
        sb.append(String.format(fmt, "overall (" + o.path("tasks").asInt() + " tasks, k=" + report.path("k").asInt() + ")", "", "", num(o, "pass@1"),
                num(o, "pass@k"), num(o, "bestOfK.prm"), num(o, "bestOfK.exec"), num(o, "bestOfK.hybrid")));
        return sb.toString();
    }

    private static String num(JsonNode n, String field) {
        return n.path(field).isNumber() ? String.format("%.3f", n.get(field).asDouble()) : "-";
    }
}
