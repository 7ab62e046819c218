package ai.openalice.rl.bench;

import ai.openalice.rl.agent.external.AgentEndpoint;
import ai.openalice.rl.agent.external.ProgramEpisode;
import ai.openalice.rl.agent.external.RecordingChat;
import ai.openalice.rl.agent.format.JsonFunctionFormat;
import ai.openalice.rl.agent.loop.AgentLoop;
import ai.openalice.rl.agent.loop.Episode;
import ai.openalice.rl.agent.loop.LoopConfig;
import ai.openalice.rl.agent.tools.Tools;
import ai.openalice.rl.events.AgentTask;
import ai.openalice.rl.events.Termination;
import ai.openalice.rl.events.task.Limits;
import ai.openalice.rl.events.task.WorkspaceSpec;
import ai.openalice.rl.harness.PythonEnvironments;
import ai.openalice.rl.model.chat.ChatTemplate;
import ai.openalice.rl.model.chat.TemplateChat;
import ai.openalice.rl.model.tokenizer.HuggingFaceTokenizer;
import ai.openalice.rl.model.tokenizer.Tokenizer;
import ai.openalice.rl.policy.Completion;
import ai.openalice.rl.policy.CompletionRequest;
import ai.openalice.rl.policy.Policy;
import ai.openalice.rl.sandbox.Sandbox;
import ai.openalice.rl.sandbox.SandboxSpec;
import ai.openalice.rl.sandbox.WorkspaceSource;
import ai.openalice.rl.sandbox.local.LocalSandboxConfig;
import ai.openalice.rl.sandbox.local.LocalSandboxProvider;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;

/**
 * Agent programs (issue 61) against the built-in loop, with a policy that answers at once from a
 * script, so that what is measured is everything but the model: whole episodes per minute of the
 * built-in loop, of a small OpenAI client of our own and of mini-swe-agent 2.4.6 (each in a fresh
 * local sandbox, the same turns: {@code cat a.py} K times, then done); and the latency one call to
 * the endpoint adds over calling the policy directly, by where it is paid.
 */
final class AgentProgramBench {
    private static final ObjectMapper JSON = new ObjectMapper();
    static final String MINI_SWE_AGENT = "mini-swe-agent==2.4.6";
    /** mini-swe-agent as it ships, headless (examples/agent-programs/mini_swe_agent.sh; the benches run from the repository), in {@code env}. */
    static ProgramEpisode.Program mini(Path env) {
        return new ProgramEpisode.Program("sh \"$ALICE_RL_AGENT_FILES/mini_swe_agent.sh\"", env,
                Path.of("examples", "agent-programs").toAbsolutePath());
    }

    /** A client of our own: {@code CALLS} calls, each sending the history back with a tool result; each call's milliseconds to /tmp/took.json. */
    static final String CLIENT = """
            "$ALICE_RL_AGENT_ENV/bin/python" - <<'EOF'
            import json, os, time, urllib.request
            calls, observation = int(os.environ["CALLS"]), "x" * int(os.environ["OBSERVATION_CHARS"])
            messages = [{"role": "system", "content": os.environ["SYSTEM"]}, {"role": "user", "content": open(os.environ["ALICE_RL_PROBLEM"]).read()}]
            took = []
            for i in range(calls):
                req = urllib.request.Request(os.environ["OPENAI_BASE_URL"] + "/chat/completions",
                    data=json.dumps({"model": os.environ["ALICE_RL_MODEL"], "messages": messages}).encode(),
                    headers={"Authorization": "Bearer " + os.environ["OPENAI_API_KEY"], "Content-Type": "application/json"})
                t0 = time.perf_counter()
                answer = json.load(urllib.request.urlopen(req, timeout=60))["choices"][0]["message"]
                took.append((time.perf_counter() - t0) * 1000)
                messages += [answer, {"role": "user", "content": observation}]
            open("/tmp/took.json", "w").write(json.dumps(took))
            EOF""";

    private AgentProgramBench() {}

    /** Answers from a script at once, each answer ended by the model's end token; a fresh one per episode. */
    record Scripted(List<String> answers, Tokenizer tok, int end, int[] count) implements Policy {
        Scripted(List<String> answers, Tokenizer tok, int end) {
            this(answers, tok, end, new int[1]);
        }

        public String name() {
            return "scripted";
        }

        public Completion complete(CompletionRequest r) {
            String text = answers.get(Math.min(count[0]++, answers.size() - 1));
            int[] body = tok.encode(text);
            int[] ids = Arrays.copyOf(body, body.length + 1);
            ids[body.length] = end;
            return new Completion(ids, new double[ids.length], tok.decode(ids), Completion.FinishReason.STOP, 0);
        }
    }

    static void run(String[] args) throws Exception {
        Path model = Path.of(args.length > 1 ? args[1] : System.getenv().getOrDefault("ALICE_MODEL_SMOLLM2", ""));
        if (!Files.isRegularFile(model.resolve("tokenizer.json"))) {
            throw new IllegalArgumentException("bench/run agent-program MODEL_DIR: a HuggingFace model folder with tokenizer.json"
                    + " (dev/stack install makes SmolLM2's; `eval \"$(dev/stack env)\"` sets ALICE_MODEL_SMOLLM2): " + model);
        }
        int episodes = args.length > 2 ? Integer.parseInt(args[2]) : 8;
        int turns = 10;
        var template = ChatTemplate.of(Files.readString(Path.of("libs/model-core/src/test/resources/chat-templates/qwen3.jinja")), Map.of());
        try (var tok = HuggingFaceTokenizer.forModel(model); var endpoint = AgentEndpoint.start()) {
            int end = tok.requireSpecial("<|im_end|>");
            var format = new JsonFunctionFormat();
            String look = "I will look at the code first.\n" + format.render("bash", JSON.createObjectNode().put("command", "cat a.py"));
            var answers = new ArrayList<>(Collections.nCopies(turns, look));
            Path env = new PythonEnvironments(PythonEnvironments.defaultCache(), PythonEnvironments.defaultRoots())
                    .ensure(JSON.createObjectNode().put("version", "3.11").set("pip_packages", JSON.createArrayNode().add(MINI_SWE_AGENT)),
                            new WorkspaceSource.Dir(Files.createTempDirectory("alice-rl-empty")), null).home();
            var provider = new LocalSandboxProvider(LocalSandboxConfig.defaults().withRoot(Path.of("/tmp", "alice-rl-bench-program")));
            Path ws = Files.createTempDirectory("bench-program-ws");
            Files.writeString(ws.resolve("a.py"), "def add(a, b):\n    return a - b\n".repeat(20));
            var spec = SandboxSpec.of(new WorkspaceSource.Dir(ws));
            var setup = new ProgramEpisode.Setup(endpoint, Files.createTempDirectory("alice-rl-programs-"), template, tok, Map.of(), "policy");
            var cfg = LoopConfig.defaults(turns + 1, 32768).withTimeout(Duration.ofMinutes(2));

            System.out.printf("%nagent programs: a scripted policy answering at once; %d episodes each, %d x `cat a.py` then done, fresh local sandbox each%n",
                    episodes, turns);
            var builtInAnswers = new ArrayList<>(answers);
            builtInAnswers.add("Done.\n" + format.render("submit", JSON.createObjectNode()));
            var loop = (Supplier<AgentLoop>) () -> new AgentLoop(new Scripted(builtInAnswers, tok, end), tok, format, Tools.standard())
                    .withLayout(new TemplateChat(template, tok, Map.of()));
            var task = new AgentTask("bench", 1, null, "Fix add in a.py.", new WorkspaceSpec.Dir(ws.toString()), new Limits(turns + 1, null, 120, 60));
            double builtIn = perMinute(episodes, () -> {
                try (Sandbox s = provider.create(spec)) {
                    return loop.get().run(task, s, cfg);
                }
            });
            System.out.printf("  built-in loop (Qwen3 template, JSON tool calls):  %6.1f episodes/min%n", builtIn);

            var miniAnswers = new ArrayList<>(answers);
            miniAnswers.add(format.render("bash", JSON.createObjectNode().put("command", "echo COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT")));
            var mini = mini(env);
            int[] extended = new int[2];
            long[] programMs = new long[3]; // until the first call, between calls, calls between
            double miniRate = perMinute(episodes, () -> {
                try (var e = ProgramEpisode.open(setup, mini, "Fix add in a.py.", new Scripted(miniAnswers, tok, end), cfg);
                        Sandbox s = provider.create(e.spec(spec))) {
                    Episode out = e.run(s);
                    var a = e.chat().turns();
                    extended[0] += a.extended();
                    extended[1] += a.extended() + a.rewritten();
                    var calls = e.chat().calls();
                    programMs[0] += calls.getFirst().sinceLastMs();
                    calls.stream().skip(1).forEach(c -> programMs[1] += c.sinceLastMs());
                    programMs[2] += calls.size() - 1;
                    return out;
                }
            });
            System.out.printf("  mini-swe-agent %s:                        %6.1f episodes/min (%.2fx the built-in loop); calls extending the previous"
                    + " prompt: %d of %d%n", MINI_SWE_AGENT.substring(16), miniRate, miniRate / builtIn, extended[0], extended[1]);
            System.out.printf("    of which mini-swe-agent's own time: %.0f ms from the start to its first call, %.0f ms between calls (running the command)%n",
                    programMs[0] / (episodes + 1.0), programMs[1] / (double) programMs[2]);
            latency(setup, provider, spec, tok, end, env, look);
            provider.close();
        }
    }

    /** {@code n} episodes (after one to warm up), as episodes per minute; an episode that does not end as submitted stops the bench. */
    private static double perMinute(int n, Supplier<Episode> episode) {
        check(episode.get());
        long t0 = System.nanoTime();
        for (int i = 0; i < n; i++) {
            check(episode.get());
        }
        return n / ((System.nanoTime() - t0) / 60e9);
    }

    private static void check(Episode e) {
        if (e.termination() != Termination.SUBMITTED) {
            throw new IllegalStateException("an episode ended " + e.termination() + ": " + e.error());
        }
    }

    /**
     * One call's latency, 30 calls of a conversation growing by a 2,000-character tool result each
     * (a 6,000-character system prompt): the policy called directly; the endpoint's recording alone
     * (render and tokenise, in process); over HTTP on the host's loopback; from a Python client in a
     * sandbox through socat and the Unix socket, as an agent program calls it.
     */
    private static void latency(ProgramEpisode.Setup setup, LocalSandboxProvider provider, SandboxSpec spec, Tokenizer tok, int end, Path env,
            String answer) throws Exception {
        int calls = 30, observationChars = 2000;
        String system = "You are a helpful assistant that can interact with a computer. ".repeat(95);
        var script = List.of(answer);
        var direct = new ArrayList<Long>();
        var recording = new ArrayList<Long>();
        var http = new ArrayList<Long>();
        for (int round = 0; round < 3; round++) {
            var chat = new RecordingChat(setup.template(), tok, Map.of(), new Scripted(script, tok, end));
            var policy = new Scripted(script, tok, end);
            var ep = new AgentEndpoint.Episode(new RecordingChat(setup.template(), tok, Map.of(), new Scripted(script, tok, end)), "policy",
                    new RecordingChat.Sampling(256, 1.0, 1.0, null, null));
            String key = setup.endpoint().open(ep);
            ArrayNode m = JSON.createArrayNode();
            m.addObject().put("role", "system").put("content", system);
            m.addObject().put("role", "user").put("content", "Fix add in a.py.");
            try (var client = HttpClient.newHttpClient()) {
                for (int i = 0; i < calls; i++) {
                    int[] prompt = tok.encode(setup.template().render(m, null, true, Map.of()));
                    long t0 = System.nanoTime();
                    policy.complete(new CompletionRequest(prompt, 256, 1.0, 1.0, null, List.of(), null));
                    long t1 = System.nanoTime();
                    var a = chat.complete(m, null, new RecordingChat.Sampling(256, 1.0, 1.0, null, null));
                    long t2 = System.nanoTime();
                    var body = JSON.createObjectNode().put("model", "policy").set("messages", m);
                    var req = HttpRequest.newBuilder(URI.create(setup.endpoint().baseUri() + "/chat/completions"))
                            .header("Authorization", "Bearer " + key).header("Content-Type", "application/json")
                            .POST(HttpRequest.BodyPublishers.ofString(body.toString())).build();
                    long t3 = System.nanoTime();
                    var r = client.send(req, HttpResponse.BodyHandlers.ofString());
                    long t4 = System.nanoTime();
                    if (r.statusCode() != 200) {
                        throw new IllegalStateException("the endpoint answered " + r.statusCode() + ": " + r.body());
                    }
                    if (round > 0) {
                        direct.add(t1 - t0);
                        recording.add(t2 - t1);
                        http.add(t4 - t3);
                    }
                    m.addObject().put("role", "assistant").put("content", a.text());
                    m.addObject().put("role", "user").put("content", "x".repeat(observationChars));
                }
            }
            setup.endpoint().close(key);
        }
        var sandboxed = new ArrayList<Long>();
        for (int round = 0; round < 3; round++) {
            var program = new ProgramEpisode.Program("export CALLS=" + calls + " OBSERVATION_CHARS=" + observationChars + " SYSTEM='" + system + "'\n"
                    + CLIENT, env);
            try (var e = ProgramEpisode.open(setup, program, "Fix add in a.py.", new Scripted(script, tok, end),
                    LoopConfig.defaults(calls, 1 << 20).withTimeout(Duration.ofMinutes(2)));
                    Sandbox s = provider.create(e.spec(spec))) {
                Episode done = e.run(s);
                var took = s.exec("cat /tmp/took.json", Duration.ofSeconds(10));
                if (!took.ok()) {
                    throw new IllegalStateException("the client did not finish (" + done.termination() + ", " + done.error() + "): " + took.stderr());
                }
                if (round > 0) {
                    for (var ms : JSON.readTree(took.stdout())) {
                        sandboxed.add((long) (ms.asDouble() * 1e6));
                    }
                }
            }
        }
        System.out.printf("%none call, %d calls a conversation (6,000-character system prompt, a 2,000-character tool result a turn); p50 / p99 ms%n", calls);
        print("the policy called directly (the baseline)", direct);
        print("the endpoint's recording (render + tokenise)", recording);
        print("HTTP to the endpoint on the host's loopback", http);
        print("a client in a sandbox, socat + Unix socket", sandboxed);
        var d = lat(direct);
        var s = lat(sandboxed);
        System.out.printf("  added per call by the endpoint as programs call it: %.2f ms at p50, %.2f ms at p99%n",
                s.percentileMs(50) - d.percentileMs(50), s.percentileMs(99) - d.percentileMs(99));
    }

    private static Latencies lat(List<Long> nanos) {
        return new Latencies(nanos.stream().mapToLong(Long::longValue).toArray());
    }

    private static void print(String what, List<Long> nanos) {
        var l = lat(nanos);
        System.out.printf("  %-48s %7.2f / %7.2f%n", what, l.percentileMs(50), l.percentileMs(99));
    }
}
