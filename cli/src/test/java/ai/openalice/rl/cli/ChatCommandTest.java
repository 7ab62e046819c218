package ai.openalice.rl.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ai.openalice.rl.testkit.PythonReference;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * {@code alice-rl model chat} against transformers' {@code apply_chat_template} (Jinja2 as
 * transformers configures it): real templates (SmolLM2's own, Qwen3's, vLLM's Llama 3.1 JSON tool
 * template) on SmolLM2's real tokenizer, over conversations with tools, calls and results, null
 * content, parallel calls, reasoning and role errors, with and without the generation prompt and
 * tools. The same text and ids, or both refusing.
 */
class ChatCommandTest {
    static final ObjectMapper M = new ObjectMapper();

    @TempDir
    Path dir;

    record Case(String name, Path model, JsonNode messages, JsonNode tools, boolean generationPrompt, Map<String, Object> variables) {}

    @Test
    void rendersAndTokenizesAsTransformers() throws Exception {
        Path root = PythonReference.scripts().getParent().getParent();
        Path templates = root.resolve("libs/model-core/src/test/resources/chat-templates");
        var models = Map.of("smollm2", modelWith(null), "qwen3", modelWith(templates.resolve("qwen3.jinja")), "llama3.1",
                modelWith(templates.resolve("llama3.1_json.jinja")));
        JsonNode fixture = M.readTree(getClass().getResourceAsStream("/chat-conversations.json"));
        var cases = new ArrayList<Case>();
        for (var model : models.entrySet()) {
            for (var conv : (Iterable<Map.Entry<String, JsonNode>>) fixture.get("conversations")::fields) {
                String name = model.getKey() + " / " + conv.getKey();
                cases.add(new Case(name, model.getValue(), conv.getValue(), null, true, Map.of()));
                cases.add(new Case(name + " / tools", model.getValue(), conv.getValue(), fixture.get("tools"), true, Map.of()));
            }
            JsonNode last = fixture.at("/conversations/several turns");
            cases.add(new Case(model.getKey() + " / no generation prompt", model.getValue(), last, null, false, Map.of()));
        }
        cases.add(new Case("qwen3 / thinking off", models.get("qwen3"), fixture.at("/conversations/reasoning"), null, true, Map.of("enable_thinking", false)));

        ArrayNode request = M.createArrayNode();
        for (Case c : cases) {
            ObjectNode r = request.addObject().put("model", c.model().toString()).put("add_generation_prompt", c.generationPrompt());
            r.set("messages", c.messages());
            r.set("tools", c.tools());
            r.set("variables", M.valueToTree(c.variables()));
        }
        Files.writeString(dir.resolve("cases.json"), M.writeValueAsString(request));
        JsonNode expected = PythonReference.reference("chat-cases", "--cases", dir.resolve("cases.json").toString()).get("results");

        var failures = new ArrayList<String>();
        int refused = 0;
        for (int i = 0; i < cases.size(); i++) {
            Case c = cases.get(i);
            JsonNode want = expected.get(i);
            var args = new ArrayList<>(List.of("model", "chat", "--model", c.model().toString(), "--messages", write("m" + i, c.messages()).toString()));
            if (c.tools() != null) {
                args.addAll(List.of("--tools", write("t" + i, c.tools()).toString()));
            }
            if (!c.generationPrompt()) {
                args.add("--no-generation-prompt");
            }
            c.variables().forEach((k, v) -> args.addAll(List.of("--set", k + "=" + v)));
            var out = new StringWriter();
            var err = new StringWriter();
            int exit = new CommandLine(new AliceRl()).setOut(new PrintWriter(out)).setErr(new PrintWriter(err)).execute(args.toArray(String[]::new));
            if (want.has("error")) {
                refused++;
                if (exit != ModelCommand.BAD_INPUT) {
                    failures.add(c.name() + ": transformers refused (" + want.get("error").asText() + "), alice-rl exited " + exit);
                }
                continue;
            }
            if (exit != 0) {
                failures.add(c.name() + ": alice-rl refused: " + err.toString().strip());
                continue;
            }
            JsonNode got = M.readTree(out.toString().strip().lines().reduce((a, b) -> b).orElseThrow());
            if (!want.get("text").asText().equals(got.get("prompt").asText())) {
                failures.add(c.name() + ": text differs\n--- transformers\n" + want.get("text").asText() + "\n--- alice-rl\n" + got.get("prompt").asText());
            } else if (!want.get("ids").equals(got.get("ids"))) {
                failures.add(c.name() + ": ids differ");
            }
        }
        System.out.printf("[chat] %d cases, %d refused by both, %d differences%n", cases.size(), refused, failures.size());
        assertTrue(failures.isEmpty(), failures.size() + " of " + cases.size() + " differ:\n" + String.join("\n\n", failures));
        assertTrue(refused > 0 && refused < cases.size() / 2, "some cases are refused by the templates, most are not: " + refused);
    }

    @Test
    void badInputExitsTwoNamingTheReason() throws Exception {
        Path model = modelWith(null);
        Files.writeString(dir.resolve("obj.json"), "{\"role\": \"user\"}");
        var err = new StringWriter();
        int exit = new CommandLine(new AliceRl()).setOut(new PrintWriter(new StringWriter())).setErr(new PrintWriter(err))
                .execute("model", "chat", "--model", model.toString(), "--messages", dir.resolve("obj.json").toString());
        assertEquals(ModelCommand.BAD_INPUT, exit);
        assertTrue(err.toString().contains("--messages: " + dir.resolve("obj.json") + " must hold a JSON array"), err.toString());
    }

    /** SmolLM2's tokenizer and config, with another template in {@code chat_template.jinja} when given. */
    private Path modelWith(Path template) throws Exception {
        Path source = PythonReference.smolLm2();
        Path m = dir.resolve(template == null ? "smollm2" : template.getFileName().toString());
        if (Files.isDirectory(m)) {
            return m;
        }
        Files.createDirectories(m);
        for (String f : List.of("config.json", "tokenizer.json", "tokenizer_config.json", "generation_config.json", "chat_template.jinja")) {
            Files.copy(source.resolve(f), m.resolve(f));
        }
        if (template != null) {
            Files.copy(template, m.resolve("chat_template.jinja"), StandardCopyOption.REPLACE_EXISTING);
        }
        return m;
    }

    private Path write(String name, JsonNode json) throws Exception {
        Path p = dir.resolve(name + ".json");
        M.writeValue(p.toFile(), json);
        return p;
    }
}
