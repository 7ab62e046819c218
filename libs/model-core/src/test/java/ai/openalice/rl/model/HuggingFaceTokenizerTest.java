package ai.openalice.rl.model;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import ai.openalice.rl.model.tokenizer.HuggingFaceTokenizer;
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
}
