package ai.openalice.rl.cli.train;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ai.openalice.rl.cli.AliceRl;
import ai.openalice.rl.model.hf.DType;
import ai.openalice.rl.model.hf.HfConfig;
import ai.openalice.rl.model.hf.TinyModels;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/** alice-rl train --model: what is checked before anything starts, and what the trainer and the runner are told. */
class ModelOptionsTest {
    static Path model(Path dir, String template) throws Exception {
        var json = TinyModels.config("qwen2").put("vocab_size", 257).put("eos_token_id", 256);
        TinyModels.write(dir, json, TinyModels.randomWeights(HfConfig.of(json, "qwen2"), 1), DType.F32, 1);
        TinyModels.JSON.writeValue(dir.resolve("tokenizer.json").toFile(), TinyModels.byteLevelTokenizer(List.of("<|eot_id|>")));
        if (template != null) {
            TinyModels.JSON.writeValue(dir.resolve("tokenizer_config.json").toFile(), TinyModels.JSON.createObjectNode().put("chat_template", template));
        }
        return dir;
    }

    static ModelOptions parse(String... args) {
        var o = new ModelOptions();
        new CommandLine(o).parseArgs(args);
        return o;
    }

    @Test
    void theServicesAreToldTheModelItsAdapterAndItsCallFormat(@TempDir Path tmp) throws Exception {
        Path hermes = model(tmp.resolve("hermes"), "{% for m in messages %}{{ m.content }}{% endfor %}<tool_call>");
        var o = parse("--model", hermes.toString(), "--lora-rank", "8", "--lora-alpha", "32", "--lora-targets", "q_proj,k_proj,v_proj");
        assertNull(o.problem());
        // the heap: 768 MiB + 4 float32 copies of a tiny model's weights (well under 1 MiB, so nothing more)
        assertEquals(List.of("-Xmx768m", "-Dtrainer.init-model=" + hermes.toAbsolutePath(), "-Dtrainer.lora.rank=8", "-Dtrainer.lora.alpha=32.0",
                "-Dtrainer.lora.targets=q_proj,k_proj,v_proj"), EmbeddedConfig.jvm(o.trainerConfig(), o.heap(4)));
        // the tiny model's max_position_embeddings is 64: below the profile's 4,096, so the episodes get 64
        assertEquals(List.of("-Drunner.model-dir=" + hermes.toAbsolutePath(), "-Drunner.tool-call-format=json", "-Drunner.system-prompt=full",
                "-Drunner.max-context-tokens=64"), EmbeddedConfig.jvm(o.runnerConfig()));
        var smaller = parse("--model", hermes.toString(), "--max-context-tokens", "48");
        assertNull(smaller.problem());
        assertEquals(48, smaller.runnerConfig().get("runner.max-context-tokens"));
        assertEquals("--max-context-tokens must be between 1 and the model's max_position_embeddings (64), got 65",
                parse("--model", hermes.toString(), "--max-context-tokens", "65").problem());
        Path llama = model(tmp.resolve("llama"), "{{ 'Respond in the format {\"name\": function name, \"parameters\": dictionary}' }}");
        assertEquals("llama3_json", parse("--model", llama.toString()).runnerConfig().get("runner.tool-call-format"));
    }

    @Test
    void aTinkerLearnerIsToldTheEngineAndTakesOnlyANewAdapter(@TempDir Path tmp) throws Exception {
        Path m = model(tmp.resolve("m"), "{{ messages }}");
        Path key = Files.writeString(tmp.resolve("key"), "tml-secret\n");
        var o = parse("--model", m.toString(), "--lora-rank", "32", "--learner", "tinker", "--learner-url", "http://skyrl:8000",
                "--learner-api-key-file", key.toString(), "--learner-base-model", "Qwen/Qwen3-8B");
        assertNull(o.problem());
        var c = o.trainerConfig();
        assertEquals("tinker", c.get("trainer.learner"));
        assertEquals("http://skyrl:8000", c.get("trainer.tinker.url").toString());
        assertEquals(key.toAbsolutePath(), c.get("trainer.tinker.api-key-file"));
        assertEquals("Qwen/Qwen3-8B", c.get("trainer.tinker.base-model"));
        assertEquals(32, c.get("trainer.lora.rank"));
        assertEquals(0, c.get("trainer.optim.clip-norm"), "SkyRL's engine cannot clip: the run trains without, rather than be refused");
        assertNull(o.runnerConfig().get("runner.policy"), "sampled by the inference service unless --sampler tinker");
        assertEquals("--learner tinker needs --learner-url, the engine's URL", parse("--model", m.toString(), "--lora-rank", "8", "--learner",
                "tinker").problem());
        assertEquals("--learner tinker trains a new LoRA adapter on the engine: give --lora-rank R (e.g. 32) and no --adapter",
                parse("--model", m.toString(), "--learner", "tinker", "--learner-url", "http://skyrl:8000").problem());
        assertEquals("--learner must be djl or tinker, got megatron", parse("--model", m.toString(), "--learner", "megatron").problem());
        assertEquals("--learner-url, --learner-api-key-file, --learner-base-model and --sampler tinker are for --learner tinker",
                parse("--model", m.toString(), "--learner-url", "http://skyrl:8000").problem());
        assertEquals("--learner-url, --learner-api-key-file, --learner-base-model and --sampler tinker are for --learner tinker",
                parse("--model", m.toString(), "--sampler", "tinker").problem());
        assertEquals("--sampler must be inference or tinker, got vllm", parse("--model", m.toString(), "--sampler", "vllm").problem());
        assertEquals("--learner, --learner-url and --sampler are for a HuggingFace model: give --model DIR",
                parse("--learner", "tinker", "--learner-url", "http://skyrl:8000").problemWithoutModel());
        assertNull(parse().problemWithoutModel());
    }

    @Test
    void episodesSampledOnTheEngineTellTheRunnerTheEngineAndTheBaseModel(@TempDir Path tmp) throws Exception {
        Path m = model(tmp.resolve("m"), "{{ messages }}");
        var o = parse("--model", m.toString(), "--lora-rank", "8", "--learner", "tinker", "--learner-url", "http://skyrl:8000", "--sampler", "tinker");
        assertNull(o.problem());
        var r = o.runnerConfig();
        assertEquals("tinker", r.get("runner.policy"));
        assertEquals("http://skyrl:8000", r.get("runner.tinker.url").toString());
        // no --learner-base-model: the engine loaded the model folder, and trainer and runner name it alike
        assertEquals(m.toAbsolutePath().toString(), r.get("runner.tinker.base-model"));
        assertEquals(r.get("runner.tinker.base-model"), o.trainerConfig().get("trainer.tinker.base-model"));
        assertNull(r.get("runner.tinker.api-key-file"));
    }

    @Test
    void aModelTheLoopCannotUseStopsTheRunBeforeAnythingStarts(@TempDir Path tmp) throws Exception {
        assertTrue(parse("--model", tmp.resolve("none").toString()).problem().contains("not a folder"));
        Path noTemplate = model(tmp.resolve("no-template"), null);
        assertTrue(parse("--model", noTemplate.toString()).problem().contains("no chat_template"), parse("--model", noTemplate.toString()).problem());
        Path ok = model(tmp.resolve("ok"), "{{ messages }}");
        assertEquals("--adapter and --lora-rank both give an adapter: keep one",
                parse("--model", ok.toString(), "--adapter", ok.toString(), "--lora-rank", "4").problem());
        Files.delete(ok.resolve("config.json"));
        var out = new StringWriter();
        int exit = new CommandLine(new AliceRl()).setOut(new PrintWriter(out)).setErr(new PrintWriter(out)).execute("train", "--state",
                tmp.resolve("state").toString(), "--model", ok.toString());
        assertEquals(2, exit, out.toString());
        assertTrue(out.toString().contains("no config.json"), out.toString());
    }

    @Test
    void optionsThatCannotGoTogetherAreRefusedBeforeAnythingStarts(@TempDir Path tmp) throws Exception {
        Path m = model(tmp.resolve("m"), "{{ messages }}");
        Path checkpoint = Files.createDirectories(tmp.resolve("v3"));
        Files.writeString(checkpoint.resolve("manifest.json"), "{}");
        var out = new StringWriter();
        int exit = new CommandLine(new AliceRl()).setOut(new PrintWriter(out)).setErr(new PrintWriter(out)).execute("train", "--state",
                tmp.resolve("state").toString(), "--model", m.toString(), "--lora-rank", "8", "--learner", "tinker", "--learner-url",
                "http://127.0.0.1:9", "--init-checkpoint", checkpoint.toString());
        assertEquals(2, exit, out.toString());
        assertTrue(out.toString().contains("--init-checkpoint is for --learner djl"), out.toString());
        var bad = new StringWriter();
        exit = new CommandLine(new AliceRl()).setOut(new PrintWriter(bad)).setErr(new PrintWriter(bad)).execute("train", "--state",
                tmp.resolve("state").toString(), "--final-eval", "most");
        assertEquals(2, exit, bad.toString());
        assertTrue(bad.toString().contains("--final-eval: 'all', 'off' or a number of held-out tasks >= 0, not 'most'"), bad.toString());
        assertTrue(Files.notExists(tmp.resolve("state")), "nothing started");
    }
}
