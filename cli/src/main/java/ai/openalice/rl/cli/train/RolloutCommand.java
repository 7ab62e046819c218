package ai.openalice.rl.cli.train;

import ai.openalice.rl.agent.format.CompactFormat;
import ai.openalice.rl.agent.loop.AgentLoop;
import ai.openalice.rl.agent.loop.Episode;
import ai.openalice.rl.agent.loop.LoopConfig;
import ai.openalice.rl.agent.tools.Tools;
import ai.openalice.rl.events.EventCodec;
import ai.openalice.rl.events.Termination;
import ai.openalice.rl.events.VerificationStatus;
import ai.openalice.rl.events.task.Task;
import ai.openalice.rl.events.task.TaskReader;
import ai.openalice.rl.harness.Harness;
import ai.openalice.rl.harness.VerifierOptions;
import ai.openalice.rl.policy.OrtPolicy;
import ai.openalice.rl.policy.PolicyException;
import ai.openalice.rl.sandbox.SandboxException;
import ai.openalice.rl.sandbox.SandboxSpec;
import ai.openalice.rl.sandbox.WorkspaceSource;
import ai.openalice.rl.sandbox.local.LocalSandboxConfig;
import ai.openalice.rl.sandbox.local.LocalSandboxProvider;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.BufferedWriter;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code alice-rl rollout --checkpoint DIR --tasks FILE}: episodes of a built-in-model checkpoint
 * on this machine — ONNX Runtime in process, local sandboxes, the verifier harness — with no
 * broker, database or service. Per-task solve counts and pass@1 with its 95% interval (tasks as
 * the sampling unit), optionally every trajectory as JSONL.
 */
@Command(name = "rollout", mixinStandardHelpOptions = true,
        description = "Run K episodes per task with a checkpoint of the built-in model in local sandboxes, verify each, and print per-task"
                + " results and pass@1 ± its 95%% interval. Exit 0 when every episode was verified, 2 for bad input, 3 for an infrastructure error.")
public final class RolloutCommand implements Callable<Integer> {
    static final int BAD_INPUT = 2;
    static final int INFRA_ERROR = 3;

    @Spec
    CommandSpec spec;

    @Option(names = "--checkpoint", required = true, paramLabel = "DIR", description = "A checkpoint folder (model.onnx, manifest.json).")
    Path checkpoint;

    @Option(names = "--tasks", required = true, paramLabel = "FILE", description = "A JSONL task file.")
    Path tasks;

    @Option(names = "--k", defaultValue = "4", description = "Episodes per task (default ${DEFAULT-VALUE}).")
    int k;

    @Option(names = "--limit", defaultValue = "0", description = "Only the first N tasks of the file (0: all).")
    int limit;

    @Option(names = "--temperature", defaultValue = "0.7", description = "Sampling temperature (default ${DEFAULT-VALUE}; 0: greedy).")
    double temperature;

    @Option(names = "--seed", defaultValue = "1", description = "Sampling seed of the first episode (each episode adds its index).")
    long seed;

    @Option(names = "--max-tokens-per-turn", defaultValue = "256", description = "Longest completion per turn (default ${DEFAULT-VALUE}).")
    int maxTokensPerTurn;

    @Option(names = "--prompt", defaultValue = "brief", description = "System prompt: brief (as alice-rl train) or full.")
    String prompt;

    @Option(names = "--out", paramLabel = "FILE", description = "Write each episode (task, verdict, trajectory) as a JSON line.")
    Path outFile;

    @Option(names = "--sandbox-root", paramLabel = "DIR", description = "Where sandboxes live (default: the system temp dir).")
    Path sandboxRoot;

    @Override
    public Integer call() throws IOException {
        PrintWriter out = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        if (k < 1 || limit < 0 || temperature < 0 || maxTokensPerTurn < 1 || !(prompt.equals("brief") || prompt.equals("full"))) {
            err.println("--k and --max-tokens-per-turn must be at least 1, --limit and --temperature at least 0, --prompt brief or full");
            return BAD_INPUT;
        }
        if (!Files.isRegularFile(tasks)) {
            err.println("--tasks: " + tasks + " does not exist");
            return BAD_INPUT;
        }
        var suite = new ArrayList<Task>();
        for (TaskReader.Line line : TaskReader.read(tasks)) {
            switch (line) {
                case TaskReader.Line.Valid v -> suite.add(v.task());
                case TaskReader.Line.Invalid bad -> {
                    err.println(tasks + ":" + bad.number() + ": " + bad.errors());
                    return BAD_INPUT;
                }
            }
        }
        List<Task> picked = limit > 0 && limit < suite.size() ? suite.subList(0, limit) : suite;
        OrtPolicy policy;
        try {
            policy = new OrtPolicy(checkpoint);
        } catch (RuntimeException e) {
            err.println("--checkpoint: " + e.getMessage());
            return BAD_INPUT;
        }
        var config = sandboxRoot == null ? LocalSandboxConfig.defaults() : LocalSandboxConfig.defaults().withRoot(sandboxRoot);
        var rates = new ArrayList<Double>();
        int solved = 0;
        var habits = new Habits();
        try (policy; var sandboxes = new LocalSandboxProvider(config);
                BufferedWriter trajectories = outFile == null ? null : Files.newBufferedWriter(outFile, StandardCharsets.UTF_8)) {
            var loop = new AgentLoop(policy, policy.tokenizer(), new CompactFormat(), Tools.standard())
                    .withPrompt(prompt.equals("brief") ? AgentLoop.Prompt.BRIEF : AgentLoop.Prompt.FULL);
            var harness = new Harness(sandboxes, VerifierOptions.defaults());
            long episodeIndex = 0;
            for (Task task : picked) {
                int c = 0;
                var endings = new ArrayList<String>();
                for (int i = 0; i < k; i++) {
                    var limits = task.limits();
                    var cfg = LoopConfig.defaults(limits.maxSteps(), 4096).withTimeout(Duration.ofSeconds(limits.episodeTimeoutS()))
                            .withSampling(temperature, 1.0, seed + episodeIndex++, maxTokensPerTurn);
                    Episode e;
                    try (var sandbox = sandboxes.create(SandboxSpec.of(WorkspaceSource.of(task.workspace(), null)))) {
                        e = loop.run(task.agentView(1), sandbox, cfg);
                    }
                    if (e.error() != null) {
                        err.println(task.instanceId() + ": " + e.error().kind() + " failure: " + e.error().message());
                        return INFRA_ERROR;
                    }
                    var verdict = harness.verify(task, e.patch());
                    if (verdict.status() == VerificationStatus.INFRA_ERROR) {
                        err.println(task.instanceId() + ": the verifier failed: " + verdict.reason());
                        return INFRA_ERROR;
                    }
                    boolean ok = verdict.status() == VerificationStatus.RESOLVED;
                    habits.add(e);
                    c += ok ? 1 : 0;
                    endings.add(e.termination().name().toLowerCase() + "/" + e.trajectory().turns().size());
                    if (trajectories != null) {
                        ObjectNode rec = EventCodec.mapper().createObjectNode().put("task", task.instanceId()).put("episode", i)
                                .put("status", verdict.status().name().toLowerCase()).put("termination", e.termination().name().toLowerCase())
                                .put("patch", e.patch());
                        rec.set("trajectory", EventCodec.mapper().valueToTree(e.trajectory()));
                        trajectories.write(EventCodec.mapper().writeValueAsString(rec));
                        trajectories.newLine();
                    }
                }
                solved += c;
                rates.add((double) c / k);
                out.printf("%-48s %d/%d  %s%n", task.instanceId(), c, k, String.join(" ", endings));
                out.flush();
            }
        } catch (SandboxException | PolicyException e) {
            err.println("infrastructure error: " + e.getMessage());
            return INFRA_ERROR;
        }
        double[] ci = TaskInterval.of(rates);
        out.printf("%s: %d tasks x %d episodes, %d resolved; pass@1 %.3f%s%n", policy.name(), picked.size(), k, solved,
                (double) solved / (picked.size() * (double) k), ci == null ? "" : String.format(" ± %.3f (95%%, tasks as the unit)", ci[1]));
        out.println(habits);
        return 0;
    }

    /** What the episodes did, turn by turn: where a policy that solves nothing gets stuck. */
    static final class Habits {
        int episodes;
        int turns;
        int unparsable;
        int refused;
        int viewed;
        int edited;
        int tested;
        int submitted;

        void add(Episode e) {
            episodes++;
            boolean view = false, edit = false, test = false;
            for (var t : e.trajectory().turns()) {
                turns++;
                var a = t.action();
                unparsable += a.parseError() != null ? 1 : 0;
                refused += a.toolError() ? 1 : 0;
                if (!a.failed()) {
                    String command = a.args() == null ? "" : a.args().path("command").asText("");
                    view |= a.tool().equals("file_editor") && command.equals("view");
                    edit |= a.tool().equals("file_editor") && !command.equals("view");
                    test |= a.tool().equals("bash");
                }
            }
            viewed += view ? 1 : 0;
            edited += edit ? 1 : 0;
            tested += test ? 1 : 0;
            submitted += e.termination() == Termination.SUBMITTED ? 1 : 0;
        }

        @Override
        public String toString() {
            return String.format("turns: %d, %d unparsable, %d refused by the tool; episodes: %d, %d viewed a file, %d edited one, %d ran a"
                    + " command, %d submitted", turns, unparsable, refused, episodes, viewed, edited, tested, submitted);
        }
    }
}
