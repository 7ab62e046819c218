package ai.openalice.rl.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ai.openalice.rl.model.chat.ChatTemplate;
import ai.openalice.rl.testkit.PythonReference;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The chat-template interpreter against Jinja2 as transformers configures it, on real templates:
 * the corpus npm's {@code @huggingface/ollama-utils} ships (the Jinja templates of ~100 models as
 * their GGUF files hold them; one entry per distinct template), each over every conversation of
 * {@code chat-conversations.json} (tools, several turns of calls and results, null content,
 * parallel calls, reasoning, an assistant first, an unknown role), without and with tools. Each
 * case gives the same text, or both refuse it (a template's own {@code raise_exception}, a filter
 * it lacks, a method a message does not have). Differences are listed, and there must be none.
 */
class ChatTemplateCorpusTest {
    static final ObjectMapper M = new ObjectMapper();
    static final Map<String, String> SPECIALS = Map.of("bos_token", "<s>", "eos_token", "</s>", "unk_token", "<unk>", "pad_token", "<pad>");
    static final Clock PINNED = Clock.fixed(Instant.parse("2026-01-15T12:00:00Z"), ZoneOffset.UTC);

    @Test
    void everyTemplateRendersEveryConversationAsJinja2OrBothRefuse() throws Exception {
        Path corpus = PythonReference.chatTemplates();
        Path conversations = Path.of(getClass().getResource("/chat-conversations.json").toURI());
        JsonNode templates = M.readTree(Files.readString(corpus));
        JsonNode fixture = M.readTree(conversations.toFile());
        JsonNode expected = PythonReference.reference("template-corpus", "--templates", corpus.toString(), "--conversations", conversations.toString());

        var parsed = new HashMap<String, Object>(); // a template, or why it cannot be parsed
        int equal = 0;
        int refusedByBoth = 0;
        List<String> differences = new ArrayList<>();
        for (JsonNode c : expected) {
            String name = c.get("template").asText();
            Object t = parsed.computeIfAbsent(name, n -> {
                try {
                    return ChatTemplate.of(templates.get(n).asText(), SPECIALS).withClock(PINNED);
                } catch (RuntimeException e) {
                    return e;
                }
            });
            String ours;
            String refusal = null;
            try {
                if (t instanceof RuntimeException e) {
                    throw e;
                }
                ours = ((ChatTemplate) t).render(fixture.at("/conversations/" + c.get("conversation").asText().replace("~", "~0").replace("/", "~1")),
                        c.get("tools").asBoolean() ? fixture.get("tools") : null, true, Map.of());
            } catch (RuntimeException e) {
                ours = null;
                refusal = e.getMessage();
            }
            String what = name + " / " + c.get("conversation").asText() + (c.get("tools").asBoolean() ? " / tools" : "");
            if (c.has("error") && ours == null) {
                refusedByBoth++;
            } else if (c.has("text") && c.get("text").asText().equals(ours)) {
                equal++;
            } else {
                differences.add(what + ": Jinja2 " + (c.has("error") ? "refused (" + c.get("error").asText() + ")" : "rendered " + c.get("text"))
                        + "; alice-rl " + (ours == null ? "refused (" + refusal + ")" : "rendered " + M.writeValueAsString(ours)));
            }
        }
        System.out.printf("[template corpus] %d templates, %d cases: %d equal, %d refused by both, %d different%n", templates.size(), expected.size(),
                equal, refusedByBoth, differences.size());
        assertTrue(templates.size() >= 50 && expected.size() == templates.size() * fixture.get("conversations").size() * 2, "the whole corpus");
        assertTrue(equal > expected.size() / 2, "most cases render: " + equal);
        assertEquals(List.of(), differences.subList(0, Math.min(20, differences.size())), differences.size() + " differences");
    }
}
