package ai.openalice.rl.bench;

import ai.openalice.rl.agent.format.JsonFunctionFormat;
import ai.openalice.rl.agent.loop.AgentLoop;
import ai.openalice.rl.agent.loop.Episode;
import ai.openalice.rl.agent.loop.LoopConfig;
import ai.openalice.rl.agent.tools.Tools;
import ai.openalice.rl.events.task.Task;
import ai.openalice.rl.events.task.TaskReader;
import ai.openalice.rl.model.chat.ChatLayout;
import ai.openalice.rl.model.chat.ChatTemplate;
import ai.openalice.rl.model.chat.TemplateChat;
import ai.openalice.rl.model.checkpoint.Checkpoint;
import ai.openalice.rl.model.hf.DType;
import ai.openalice.rl.model.hf.HfConfig;
import ai.openalice.rl.model.hf.LoraAdapter;
import ai.openalice.rl.model.hf.LoraConfig;
import ai.openalice.rl.model.hf.TinyModels;
import ai.openalice.rl.policy.CompletionRequest;
import ai.openalice.rl.policy.OrtPolicy;
import ai.openalice.rl.sandbox.Sandbox;
import ai.openalice.rl.sandbox.SandboxSpec;
import ai.openalice.rl.sandbox.WorkspaceSource;
import ai.openalice.rl.sandbox.local.LocalSandboxConfig;
import ai.openalice.rl.sandbox.local.LocalSandboxProvider;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Random;

/**
 * A real family's model in the agent loop, on this machine's CPU: Qwen2.5-0.5B's widths with
 * {@code layers} of its layers (HfModelBench's model), a byte-level tokenizer padded to its
 * 151,936-token vocabulary, Qwen3's chat template. Checkpoint-to-serving latency — the trainer's
 * write (ONNX export, weights or adapter, sha256s) until the served model's first token — for full
 * weights against a LoRA adapter; then episodes a minute through the template layout with the model
 * sampling in process, and the layout's own time per turn against the policy's.
 * <pre>bench/run hf-loop [layers] [episodes]</pre>
 */
final class HfLoopBench {
    private HfLoopBench() {}

    static void run(String[] args) throws Exception {
        int layers = args.length > 1 ? Integer.parseInt(args[1]) : 2;
        int episodes = args.length > 2 ? Integer.parseInt(args[2]) : 3;
        HfConfig c = HfModelBench.config(layers);
        Path root = Files.createTempDirectory("bench-hf-loop");
        Path source = model(root.resolve("model"), layers);
        Map<String, float[]> weights = TinyModels.randomWeights(c, 1);
        System.out.printf("%nhf-loop: Qwen2.5-0.5B's widths, %d of its 24 layers, Qwen3's chat template; 1 thread%n", layers);

        long t0 = System.nanoTime();
        Checkpoint.saveHf(root.resolve("full"), c, source, weights, null, DType.BF16, 1, 1, Map.of(), 0);
        double fullWrite = ms(t0);
        double fullServe = serve(root.resolve("full"));
        var adapter = LoraAdapter.initialise(new LoraConfig(16, 32, List.of("q_proj", "k_proj", "v_proj", "o_proj", "gate_proj", "up_proj", "down_proj"),
                null, false, source.toString()), c, 2);
        t0 = System.nanoTime();
        Checkpoint.saveHf(root.resolve("lora"), c, source, adapter.merge(weights), adapter, DType.BF16, 2, 2, Map.of(), 0);
        double loraWrite = ms(t0);
        double loraServe = serve(root.resolve("lora"));
        System.out.printf("  checkpoint -> first token, full weights   : %7.0f ms (write %.0f ms, verify+load+first token %.0f ms)%n", fullWrite + fullServe,
                fullWrite, fullServe);
        System.out.printf("  checkpoint -> first token, LoRA r=16      : %7.0f ms (write %.0f ms, verify+load+first token %.0f ms)   %.2fx full%n",
                loraWrite + loraServe, loraWrite, loraServe, (loraWrite + loraServe) / (fullWrite + fullServe));
        episodes(root.resolve("full"), episodes);
    }

    /** The model folder: config, a byte-level tokenizer padded to the vocabulary, Qwen3's template, its end tokens (weights go into the checkpoints). */
    static Path model(Path dir, int layers) throws Exception {
        Files.createDirectories(dir);
        var config = HfModelBench.configJson(layers).put("eos_token_id", 258);
        TinyModels.JSON.writeValue(dir.resolve("config.json").toFile(), config);
        var tok = TinyModels.byteLevelTokenizer(List.of("<|endoftext|>", "<|im_start|>", "<|im_end|>"));
        var vocab = (ObjectNode) tok.path("model").path("vocab");
        for (int id = 259; id < config.get("vocab_size").asInt(); id++) {
            vocab.put("x" + id, id);
        }
        TinyModels.JSON.writeValue(dir.resolve("tokenizer.json").toFile(), tok);
        Files.writeString(dir.resolve("generation_config.json"), "{\"eos_token_id\": [258, 256]}");
        String template = Files.readString(TrainRuns.root().resolve("libs/model-core/src/test/resources/chat-templates/qwen3.jinja"));
        TinyModels.JSON.writeValue(dir.resolve("tokenizer_config.json").toFile(), TinyModels.JSON.createObjectNode().put("chat_template", template));
        return dir;
    }

    /** What the inference service does with a published checkpoint: verify every sha256, load, and generate the first token. */
    static double serve(Path dir) {
        long t0 = System.nanoTime();
        Checkpoint.verify(dir);
        try (var p = new OrtPolicy(dir)) {
            p.complete(CompletionRequest.greedy(new Random(5).ints(32, 0, 256).toArray(), 1));
        }
        return ms(t0);
    }

    private static void episodes(Path checkpoint, int n) throws Exception {
        Task task = ((TaskReader.Line.Valid) TaskReader.read(TrainRuns.root().resolve("examples/tasks/calc.jsonl")).getFirst()).task();
        var provider = new LocalSandboxProvider(LocalSandboxConfig.defaults().withRoot(Path.of("/tmp", "alice-rl-bench-hf-loop")));
        try (var policy = new OrtPolicy(checkpoint)) {
            var template = ChatTemplate.load(checkpoint, true);
            var timed = new Timed(new TemplateChat(template, policy.tokenizer(), Map.of()));
            var loop = new AgentLoop(policy, policy.tokenizer(), new JsonFunctionFormat(), Tools.standard()).withLayout(timed);
            var cfg = LoopConfig.defaults(4, 8192).withSampling(1.0, 1.0, 7L, 32);
            long t0 = System.nanoTime();
            long turns = 0;
            long policyMs = 0;
            for (int i = 0; i < n; i++) {
                try (Sandbox s = provider.create(SandboxSpec.of(WorkspaceSource.of(task.workspace(), null)))) {
                    Episode e = loop.run(task.agentView(1), s, cfg);
                    turns += e.stats().turns();
                    policyMs += e.stats().policyTimeMs();
                }
            }
            double minutes = (System.nanoTime() - t0) / 60e9;
            System.out.printf("  episodes a minute (4 turns of <= 32 tokens, in-process policy, local sandboxes): %.1f%n", n / minutes);
            System.out.printf("  per turn: policy %.0f ms; template layout %.1f ms (%.3fx the policy's)%n", (double) policyMs / turns,
                    timed.nanos()[0] / 1e6 / turns, timed.nanos()[0] / 1e6 / policyMs);
        } finally {
            provider.close();
        }
    }

    /** A layout whose time, over every episode it lays out, adds up in {@code nanos[0]}. */
    record Timed(ChatLayout inner, long[] nanos) implements ChatLayout {
        Timed(ChatLayout inner) {
            this(inner, new long[1]);
        }

        @Override
        public int[] opening(String system, String user, JsonNode tools) {
            long t0 = System.nanoTime();
            int[] out = inner.opening(system, user, tools);
            nanos[0] += System.nanoTime() - t0;
            return out;
        }

        @Override
        public int[] afterCompletion(int[] completion, String observation) {
            long t0 = System.nanoTime();
            int[] out = inner.afterCompletion(completion, observation);
            nanos[0] += System.nanoTime() - t0;
            return out;
        }

        @Override
        public boolean describesTools() {
            return inner.describesTools();
        }

        @Override
        public ChatLayout forEpisode() {
            return new Timed(inner.forEpisode(), nanos);
        }
    }

    private static double ms(long t0) {
        return (System.nanoTime() - t0) / 1e6;
    }
}
