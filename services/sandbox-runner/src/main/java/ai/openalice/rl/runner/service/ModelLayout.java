package ai.openalice.rl.runner.service;

import ai.openalice.rl.jinja.TemplateException;
import ai.openalice.rl.model.chat.ChatLayout;
import ai.openalice.rl.model.chat.ChatTemplate;
import ai.openalice.rl.model.chat.CompactChat;
import ai.openalice.rl.model.chat.TemplateChat;
import ai.openalice.rl.model.tokenizer.ByteTokenizer;
import ai.openalice.rl.model.tokenizer.HuggingFaceTokenizer;
import ai.openalice.rl.model.tokenizer.Tokenizer;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.Optional;

/**
 * The tokens episodes are laid out in: the built-in byte tokenizer and compact layout, or — with
 * {@code runner.model-dir} — a HuggingFace model's tokenizer ({@code tokenizer.json}, its end
 * tokens from {@code generation_config.json}/{@code config.json}) and its own chat template (kept
 * for an agent program's calls, which it lays out too).
 */
record ModelLayout(Tokenizer tokenizer, ChatLayout layout, Optional<ChatTemplate> template, Map<String, Object> extra) {

    /** A folder that cannot lay out episodes stops the start with the reason (no episode would be usable). */
    static ModelLayout open(Optional<Path> modelDir, Optional<Boolean> enableThinking) {
        if (modelDir.isEmpty()) {
            var t = new ByteTokenizer();
            return new ModelLayout(t, new CompactChat(t), Optional.empty(), Map.of());
        }
        Path dir = modelDir.get();
        if (!Files.isRegularFile(dir.resolve("tokenizer.json"))) {
            throw new IllegalStateException("runner.model-dir " + dir + " has no tokenizer.json (a HuggingFace model folder or a checkpoint of one)");
        }
        try {
            var t = HuggingFaceTokenizer.forModel(dir);
            if (t.endTokens().length == 0) {
                throw new IllegalStateException("runner.model-dir " + dir + ": no end-of-sequence token (eos_token_id in generation_config.json or"
                        + " config.json, or eos_token in tokenizer_config.json): completions would never end");
            }
            var template = ChatTemplate.load(dir, true);
            Map<String, Object> extra = enableThinking.<Map<String, Object>>map(b -> Map.of("enable_thinking", b)).orElse(Map.of());
            return new ModelLayout(t, new TemplateChat(template, t, extra), Optional.of(template), extra);
        } catch (IOException e) {
            throw new IllegalStateException("runner.model-dir " + dir + " cannot be read: " + e.getMessage(), e);
        } catch (TemplateException e) {
            throw new IllegalStateException("runner.model-dir: " + e.getMessage(), e);
        }
    }
}
