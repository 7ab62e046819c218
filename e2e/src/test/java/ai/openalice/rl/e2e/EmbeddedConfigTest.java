package ai.openalice.rl.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ai.openalice.rl.cli.train.EmbeddedConfig;
import ai.openalice.rl.model.hf.DType;
import ai.openalice.rl.model.hf.HfConfig;
import ai.openalice.rl.model.hf.TinyModels;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What {@code alice-rl train} tells each service is configuration the service has: every key with
 * a service's prefix is a key of its {@code @ConfigMapping} (a renamed key would otherwise be passed
 * to nothing, silently), with every option that adds keys given.
 */
class EmbeddedConfigTest {
    @TempDir
    Path tmp;

    @Test
    void everyKeyTheRunPassesIsAKeyOfTheServicesConfiguration() throws Exception {
        Path model = tmp.resolve("model");
        var json = TinyModels.config("qwen2").put("vocab_size", 257).put("eos_token_id", 256);
        TinyModels.write(model, json, TinyModels.randomWeights(HfConfig.of(json, "qwen2"), 1), DType.F32, 1);
        TinyModels.JSON.writeValue(model.resolve("tokenizer.json").toFile(), TinyModels.byteLevelTokenizer(List.of("<|eot_id|>")));
        TinyModels.JSON.writeValue(model.resolve("tokenizer_config.json").toFile(),
                TinyModels.JSON.createObjectNode().put("chat_template", "{% for m in messages %}{{ m.content }}{% endfor %}<tool_call>"));
        Path folder = Files.createDirectories(tmp.resolve("folder"));
        var config = EmbeddedConfig.parse(tmp.resolve("state"), "--model", model.toString(), "--lora-rank", "8", "--init-checkpoint", folder.toString(),
                "--mirrors", folder.toString(), "--maven-repo", folder.toString(), "--maven-home", folder.toString(), "--npm-cache", folder.toString());
        var given = Map.of("inference", List.of(config.inference()), "trainer", List.of(config.trainer("sft"), config.trainer("rl")),
                "rubric-prm", List.of(config.rubric()), "verifier", List.of(config.verifier()),
                "sandbox-runner", List.of(config.runner(true, 0.5, URI.create("http://127.0.0.1:1")), config.runner(false, null, URI.create("http://127.0.0.1:1"))),
                "task-dispatcher", List.of(config.dispatcher(true), config.dispatcher(false)));
        int checked = 0;
        for (var e : given.entrySet()) {
            var mapping = ConfigDocTest.mapping(e.getKey());
            String prefix = ConfigDocTest.prefix(mapping);
            var known = ConfigDocTest.keys(mapping);
            var unknown = new TreeSet<String>();
            for (var c : e.getValue()) {
                for (String key : c.keySet()) {
                    if (key.startsWith(prefix + ".")) {
                        checked++;
                        if (!known.contains(key)) {
                            unknown.add(key);
                        }
                    }
                }
            }
            assertEquals(Set.of(), unknown, e.getKey() + " has no such configuration");
        }
        // the options given reach their keys: LoRA, the starting checkpoint, the task folders
        assertTrue(config.trainer("rl").containsKey("trainer.lora.rank") && config.trainer("rl").containsKey("trainer.init-checkpoint"));
        assertTrue(config.verifier().containsKey("verifier.npm-cache") && config.runner(false, null, URI.create("http://x")).containsKey("runner.mirrors"));
        assertTrue(checked > 40, "checked " + checked + " keys");
    }
}
