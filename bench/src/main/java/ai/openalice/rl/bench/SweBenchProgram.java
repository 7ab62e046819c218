package ai.openalice.rl.bench;

import ai.openalice.rl.agent.external.AgentEndpoint;
import ai.openalice.rl.agent.external.ProgramEpisode;
import ai.openalice.rl.agent.format.JsonFunctionFormat;
import ai.openalice.rl.agent.loop.Episode;
import ai.openalice.rl.agent.loop.LoopConfig;
import ai.openalice.rl.events.task.Task;
import ai.openalice.rl.harness.Harness;
import ai.openalice.rl.harness.PythonEnvironments;
import ai.openalice.rl.harness.TestEnvironment;
import ai.openalice.rl.harness.Verdict;
import ai.openalice.rl.harness.VerifierOptions;
import ai.openalice.rl.model.chat.ChatTemplate;
import ai.openalice.rl.model.tokenizer.HuggingFaceTokenizer;
import ai.openalice.rl.sandbox.Sandbox;
import ai.openalice.rl.sandbox.SandboxSpec;
import ai.openalice.rl.sandbox.WorkspaceSource;
import ai.openalice.rl.sandbox.local.LocalSandboxConfig;
import ai.openalice.rl.sandbox.local.LocalSandboxProvider;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * mini-swe-agent 2.4.6 on SWE-bench Verified instances, as the runner plays an episode: the
 * instance's repository at its commit with its Python environment in a local sandbox, the
 * environment's set-up edits committed and the project installed, mini-swe-agent run unchanged against the endpoint, the
 * workspace's diff judged by the verifier with the instance's own tests. No model that can solve an
 * instance runs here, so the policy is scripted from the gold patch: it has mini-swe-agent run the
 * instance's tests, apply the patch with {@code git apply}, run them again and submit. What this
 * checks is everything around the model: that the program runs in the instance's sandbox, that its
 * commands see the instance's Python, and that its work reaches the verdict.
 * {@code bench/run swebench-program --mirrors DIR --only REGEX [--model DIR]}.
 */
final class SweBenchProgram {
    private static final ObjectMapper JSON = new ObjectMapper();

    private SweBenchProgram() {}

    static void run(String[] args) throws Exception {
        Map<String, String> opts = SweBenchVerifiedBench.options(args);
        if (!opts.containsKey("--mirrors") || !opts.containsKey("--only")) {
            System.err.println("usage: bench/run swebench-program --mirrors DIR --only REGEX [--model DIR (a tokenizer with <|im_end|>; default $ALICE_MODEL_SMOLLM2)]");
            System.exit(2);
        }
        Path model = Path.of(opts.getOrDefault("--model", System.getenv().getOrDefault("ALICE_MODEL_SMOLLM2", "")));
        Path mirrors = Path.of(opts.get("--mirrors")).toAbsolutePath();
        var only = Pattern.compile(opts.get("--only"));
        Map<String, Task> tasks = SweBenchVerifiedBench.importBothForms(SweBenchVerifiedBench.SHARED.resolve("test.parquet"),
                new SweBenchVerifiedTable(JSON.readTree(SweBenchVerifiedBench.SHARED.resolve(SweBenchVerifiedBench.RUN + ".reports.json").toFile())));
        var envs = new PythonEnvironments(PythonEnvironments.defaultCache(), PythonEnvironments.defaultRoots());
        var template = ChatTemplate.of(Files.readString(Path.of("libs/model-core/src/test/resources/chat-templates/qwen3.jinja")), Map.of());
        Path mini = envs.ensure(JSON.createObjectNode().put("version", "3.11").set("pip_packages", JSON.createArrayNode().add(AgentProgramBench.MINI_SWE_AGENT)),
                new WorkspaceSource.Dir(Files.createTempDirectory("alice-rl-empty")), null).home();
        var format = new JsonFunctionFormat();
        try (var tok = HuggingFaceTokenizer.forModel(model); var endpoint = AgentEndpoint.start();
                var provider = new LocalSandboxProvider(LocalSandboxConfig.defaults())) {
            int end = tok.requireSpecial("<|im_end|>");
            var setup = new ProgramEpisode.Setup(endpoint, Files.createTempDirectory("alice-rl-programs-"), template, tok, Map.of(), "policy");
            var harness = new Harness(provider, VerifierOptions.defaults().withMirrors(mirrors).withPython(envs));
            for (Task t : tasks.values()) {
                if (!only.matcher(t.instanceId()).find() || !Files.isDirectory(mirrors.resolve(t.repo().replace("/", "__")))) {
                    continue;
                }
                // what the agent can see: the package it edits, imported from elsewhere (installed), and a test file that exists at the base
                String file = t.patch().lines().filter(l -> l.startsWith("+++ b/")).findFirst().orElse("+++ b/x").substring(6);
                String pkg = file.startsWith("src/") ? file.split("/")[1] : file.split("/")[0];
                String testFile = t.passToPass().stream().filter(id -> id.contains("::")).map(id -> id.substring(0, id.indexOf("::"))).findFirst().orElse(null);
                String run = testFile == null ? "echo no test file named" : "python -m pytest -q -p no:cacheprovider " + testFile + " 2>&1 | tail -3";
                var answers = List.of(
                        format.render("bash", JSON.createObjectNode().put("command", "cd /tmp && python -c 'import " + pkg + "; print(" + pkg + ".__file__)'")),
                        format.render("bash", JSON.createObjectNode().put("command", "git apply <<'ALICE_PATCH'\n" + t.patch() + "\nALICE_PATCH\ngit status --short")),
                        format.render("bash", JSON.createObjectNode().put("command", run)),
                        format.render("bash", JSON.createObjectNode().put("command", "echo COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT")));
                var source = WorkspaceSource.of(t.workspace(), mirrors);
                TestEnvironment env = TestEnvironment.of(null, null, null, null).withPython(envs.ensure(t.pythonToolchain().orElseThrow(), source, t.version()));
                long t0 = System.nanoTime();
                Episode e;
                try (var episode = ProgramEpisode.open(setup, AgentProgramBench.mini(mini), t.problemStatement(),
                        new AgentProgramBench.Scripted(answers, tok, end), LoopConfig.defaults(10, 65536).withTimeout(Duration.ofMinutes(10)));
                        Sandbox s = provider.create(episode.spec(env.applyTo(SandboxSpec.of(source))))) {
                    String editsFailed = env.commitWorkspaceEdits(s);
                    if (editsFailed != null) {
                        System.out.println("  the environment's set-up edits do not apply: " + editsFailed);
                    }
                    String installFailed = env.installProject(s);
                    if (installFailed != null) {
                        System.out.println("  the project does not install: " + installFailed);
                    }
                    e = episode.run(s);
                }
                double episodeS = (System.nanoTime() - t0) / 1e9;
                System.out.println("  the patch's files: " + e.patch().lines().filter(l -> l.startsWith("+++ ")).map(l -> l.substring(4)).toList());
                Verdict v = harness.verify(t, e.patch());
                System.out.printf("%s: mini-swe-agent ended %s after %d calls in %.0f s; the verifier: %s%s%n", t.instanceId(), e.termination().wire(),
                        e.trajectory().turns().size(), episodeS, v.status().wire(), v.cause() == null ? "" : " (" + v.cause().wire() + ")");
                for (var turn : e.trajectory().turns()) {
                    String obs = turn.observation().strip();
                    System.out.printf("  turn %d: %s%n    -> %s%n", turn.index(), turn.action() == null ? "(no command)"
                            : firstLine(turn.action().args().path("command").asText()), obs.length() > 300 ? obs.substring(obs.length() - 300) : obs);
                }
            }
        }
    }

    private static String firstLine(String s) {
        int nl = s.indexOf('\n');
        return nl < 0 ? s : s.substring(0, nl) + " …";
    }
}
