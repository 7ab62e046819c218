package ai.openalice.rl.model;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import ai.openalice.rl.model.hf.TinyModels;
import ai.openalice.rl.model.tokenizer.HuggingFaceTokenizer;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A tokenizer.json written here (a word-level model), loaded offline through DJL's native tokenizers. */
class HuggingFaceTokenizerTest {
    static final String JSON = """
            {"version": "1.0", "truncation": null, "padding": null,
             "added_tokens": [{"id": 5, "content": "<|eos|>", "single_word": false, "lstrip": false, "rstrip": false,
                               "normalized": false, "special": true}],
             "normalizer": null,
             "pre_tokenizer": {"type": "Whitespace"},
             "post_processor": null, "decoder": null,
             "model": {"type": "WordLevel", "vocab": {"[UNK]": 0, "def": 1, "return": 2, "x": 3, "+": 4}, "unk_token": "[UNK]"}}
            """;

    @Test
    void encodesDecodesAndKnowsItsSpecials(@TempDir Path tmp) throws Exception {
        Path file = Files.writeString(tmp.resolve("tokenizer.json"), JSON);
        try (var t = HuggingFaceTokenizer.load(file)) {
            assertArrayEquals(new int[] {2, 3, 4, 0}, t.encode("return x + y"));
            assertArrayEquals(new int[] {1, 5}, t.encode("def <|eos|>"));
            assertEquals(6, t.vocabSize());
            assertEquals(List.of("<|eos|>"), t.specials());
            assertEquals(5, t.requireSpecial("<|eos|>"));
            assertEquals("return x +", t.decode(new int[] {2, 3, 4}));
        }
    }

    @Test
    void longTextIsNeverTruncatedAndEndTokensComeFromTheModelFolder(@TempDir Path model) throws Exception {
        var json = new ObjectMapper();
        json.writeValue(model.resolve("tokenizer.json").toFile(),
                TinyModels.byteLevelTokenizer(List.of("<|endoftext|>", "<|im_start|>", "<|im_end|>")));
        Files.writeString(model.resolve("config.json"), "{\"eos_token_id\": 256}");
        Files.writeString(model.resolve("generation_config.json"), "{\"eos_token_id\": [258, 256]}");
        try (var t = HuggingFaceTokenizer.forModel(model)) {
            String text = "x".repeat(3000) + "<|im_end|>\né";
            int[] ids = t.encode(text);
            assertEquals(3000 + 1 + 1 + 2, ids.length, "one id per byte (é is two), the special as one id: DJL's default cut at 512 is off");
            assertEquals(258, ids[3000]);
            assertEquals(text, t.decode(ids));
            assertArrayEquals(new int[] {258, 256}, t.endTokens(), "generation_config.json's ids win over config.json's");
        }
        Files.delete(model.resolve("generation_config.json"));
        try (var t = HuggingFaceTokenizer.forModel(model)) {
            assertArrayEquals(new int[] {256}, t.endTokens());
        }
    }
}
