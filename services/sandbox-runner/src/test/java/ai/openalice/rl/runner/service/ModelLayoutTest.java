package ai.openalice.rl.runner.service;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ai.openalice.rl.model.chat.CompactChat;
import ai.openalice.rl.model.chat.TemplateChat;
import ai.openalice.rl.model.hf.TinyModels;
import ai.openalice.rl.model.tokenizer.ByteTokenizer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** runner.model-dir: a model folder's tokenizer and chat template lay out episodes; a folder that cannot is refused at start, naming why. */
class ModelLayoutTest {
    @Test
    void withoutAModelTheBuiltInLayout() {
        var m = ModelLayout.open(Optional.empty(), Optional.empty());
        assertInstanceOf(ByteTokenizer.class, m.tokenizer());
        assertInstanceOf(CompactChat.class, m.layout());
    }

    @Test
    void aModelFolderLaysOutWithItsTemplateAndThinkingSwitch(@TempDir Path dir) throws Exception {
        TinyModels.JSON.writeValue(dir.resolve("tokenizer.json").toFile(),
                TinyModels.byteLevelTokenizer(List.of("<|endoftext|>", "<|im_start|>", "<|im_end|>")));
        Files.writeString(dir.resolve("generation_config.json"), "{\"eos_token_id\": [258, 256]}");
        String qwen3 = Files.readString(Path.of("..", "..", "libs", "model-core", "src", "test", "resources", "chat-templates", "qwen3.jinja"));
        TinyModels.JSON.writeValue(dir.resolve("tokenizer_config.json").toFile(), TinyModels.JSON.createObjectNode().put("chat_template", qwen3));
        var m = ModelLayout.open(Optional.of(dir), Optional.of(false));
        assertInstanceOf(TemplateChat.class, m.layout());
        assertEquals("<|im_start|>system\nS<|im_end|>\n<|im_start|>user\nU<|im_end|>\n<|im_start|>assistant\n<think>\n\n</think>\n\n",
                m.tokenizer().decode(m.layout().forEpisode().opening("S", "U", null)));
    }

    @Test
    void foldersThatCannotLayOutEpisodesAreNamed(@TempDir Path dir) throws Exception {
        assertMessage(dir, "has no tokenizer.json");
        TinyModels.JSON.writeValue(dir.resolve("tokenizer.json").toFile(), TinyModels.byteLevelTokenizer(List.of("<|im_end|>")));
        assertMessage(dir, "no end-of-sequence token");
        Files.writeString(dir.resolve("config.json"), "{\"eos_token_id\": 256}");
        assertMessage(dir, "has no chat_template");
    }

    private static void assertMessage(Path dir, String fragment) {
        var e = assertThrows(IllegalStateException.class, () -> ModelLayout.open(Optional.of(dir), Optional.empty()));
        assertTrue(e.getMessage().contains(fragment), e.getMessage());
    }
}
