package ai.openalice.rl.model.chat;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ai.openalice.rl.jinja.TemplateException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Real chat templates as they ship, rendered and compared with renderings worked out by hand from
 * the template text and Jinja's rules. Fixtures: {@code qwen3.jinja} is Qwen3's
 * {@code tokenizer_config.json} template; {@code llama3.1_json.jinja} is vLLM's
 * {@code examples/tool_chat_template_llama3.1_json.jinja} (Llama 3.1's JSON tool calling).
 */
class ChatTemplateTest {
    static final ObjectMapper JSON = new ObjectMapper();
    static final String TOOL = """
            {"type": "function", "function": {"name": "bash", "description": "Run a command",
             "parameters": {"type": "object", "properties": {"command": {"type": "string"}}, "required": ["command"]}}}""";

    static ChatTemplate fixture(String name, Map<String, String> specials) throws Exception {
        try (var in = ChatTemplateTest.class.getResourceAsStream("/chat-templates/" + name)) {
            return ChatTemplate.of(new String(in.readAllBytes(), StandardCharsets.UTF_8), specials);
        }
    }

    static JsonNode json(String s) throws Exception {
        return JSON.readTree(s);
    }

    @Test
    void qwen3RendersToolsThinkingAndConsecutiveToolResults() throws Exception {
        var messages = json("""
                [{"role": "system", "content": "You fix bugs."},
                 {"role": "user", "content": "Fix calc."},
                 {"role": "assistant", "content": "<think>\\nlook first\\n</think>\\n\\nI will list files.",
                  "tool_calls": [{"type": "function", "function": {"name": "bash", "arguments": {"command": "ls"}}}]},
                 {"role": "tool", "content": "calc.py\\ntest_calc.py"},
                 {"role": "tool", "content": "ok"}]""");
        String out = fixture("qwen3.jinja", Map.of()).render(messages, json("[" + TOOL + "]"), true, Map.of());
        String expected = "<|im_start|>system\nYou fix bugs.\n\n# Tools\n\nYou may call one or more functions to assist with the user query.\n\n"
                + "You are provided with function signatures within <tools></tools> XML tags:\n<tools>\n"
                + "{\"type\": \"function\", \"function\": {\"name\": \"bash\", \"description\": \"Run a command\", \"parameters\": {\"type\": \"object\","
                + " \"properties\": {\"command\": {\"type\": \"string\"}}, \"required\": [\"command\"]}}}"
                + "\n</tools>\n\nFor each function call, return a json object with function name and arguments within <tool_call></tool_call> XML tags:\n"
                + "<tool_call>\n{\"name\": <function-name>, \"arguments\": <args-json-object>}\n</tool_call><|im_end|>\n"
                + "<|im_start|>user\nFix calc.<|im_end|>\n"
                + "<|im_start|>assistant\n<think>\nlook first\n</think>\n\nI will list files.\n<tool_call>\n{\"name\": \"bash\", \"arguments\": {\"command\": \"ls\"}}\n</tool_call><|im_end|>\n"
                + "<|im_start|>user\n<tool_response>\ncalc.py\ntest_calc.py\n</tool_response>\n<tool_response>\nok\n</tool_response><|im_end|>\n"
                + "<|im_start|>assistant\n";
        assertEquals(expected, out);
    }

    @Test
    void qwen3ThinkingSwitchAndLastAssistantTurn() throws Exception {
        var t = fixture("qwen3.jinja", Map.of());
        assertEquals("<|im_start|>user\nHi<|im_end|>\n<|im_start|>assistant\n<think>\n\n</think>\n\nHello.<|im_end|>\n",
                t.render(json("[{\"role\": \"user\", \"content\": \"Hi\"}, {\"role\": \"assistant\", \"content\": \"Hello.\"}]"), null, false, Map.of()));
        assertEquals("<|im_start|>user\nHi<|im_end|>\n<|im_start|>assistant\n<think>\n\n</think>\n\n",
                t.render(json("[{\"role\": \"user\", \"content\": \"Hi\"}]"), null, true, Map.of("enable_thinking", false)));
        assertEquals("<|im_start|>user\nHi<|im_end|>\n<|im_start|>assistant\n",
                t.render(json("[{\"role\": \"user\", \"content\": \"Hi\"}]"), null, true, Map.of("enable_thinking", true)));
    }

    @Test
    void llama31JsonToolsInTheFirstUserMessage() throws Exception {
        var t = fixture("llama3.1_json.jinja", Map.of("bos_token", "<|begin_of_text|>"))
                .withClock(Clock.fixed(Instant.parse("2026-12-02T10:00:00Z"), ZoneOffset.UTC));
        var messages = json("""
                [{"role": "system", "content": "You fix bugs. "},
                 {"role": "user", "content": "Fix calc."},
                 {"role": "assistant", "tool_calls": [{"type": "function", "function": {"name": "bash", "arguments": {"command": "ls"}}}]},
                 {"role": "tool", "content": "a.py \\"b\\""}]""");
        String indented = """
                {
                    "type": "function",
                    "function": {
                        "name": "bash",
                        "description": "Run a command",
                        "parameters": {
                            "type": "object",
                            "properties": {
                                "command": {
                                    "type": "string"
                                }
                            },
                            "required": [
                                "command"
                            ]
                        }
                    }
                }""";
        String expected = "<|begin_of_text|><|start_header_id|>system<|end_header_id|>\n\nEnvironment: ipython\nCutting Knowledge Date: December 2023\n"
                + "Today Date: 02 Dec 2026\n\nYou fix bugs.<|eot_id|>"
                + "<|start_header_id|>user<|end_header_id|>\n\nGiven the following functions, please respond with a JSON for a function call "
                + "with its proper arguments that best answers the given prompt.\n\n"
                + "Respond in the format {\"name\": function name, \"parameters\": dictionary of argument name and its value}. Do not use variables.\n\n"
                + indented + "\n\nFix calc.<|eot_id|>"
                + "<|start_header_id|>assistant<|end_header_id|>\n\n{\"name\": \"bash\", \"parameters\": {\"command\": \"ls\"}}<|eot_id|>"
                + "<|start_header_id|>ipython<|end_header_id|>\n\n{\"output\": \"a.py \\\"b\\\"\"}<|eot_id|>"
                + "<|start_header_id|>assistant<|end_header_id|>\n\n";
        assertEquals(expected, t.render(messages, json("[" + TOOL + "]"), true, Map.of()));
    }

    @Test
    void llama31RaisesWhereTheTemplateDoes() throws Exception {
        var t = fixture("llama3.1_json.jinja", Map.of("bos_token", "<|begin_of_text|>"));
        var e = assertThrows(TemplateException.class, () -> t.render(json("[{\"role\": \"system\", \"content\": \"s\"}]"), json("[" + TOOL + "]"), true,
                Map.of()));
        assertTrue(e.getMessage().contains("the template raised: Cannot put tools in the first user message"), e.getMessage());
    }

    @Test
    void loadsFromAModelFolder(@TempDir Path dir) throws Exception {
        var cfg = JSON.createObjectNode();
        cfg.putObject("bos_token").put("__type", "AddedToken").put("content", "<s>");
        cfg.put("eos_token", "</s>");
        var list = cfg.putArray("chat_template");
        list.addObject().put("name", "default").put("template", "{{ bos_token }}default{{ eos_token }}");
        list.addObject().put("name", "tool_use").put("template", "{{ bos_token }}tools{{ eos_token }}");
        JSON.writeValue(dir.resolve("tokenizer_config.json").toFile(), cfg);
        assertEquals("<s>default</s>", ChatTemplate.load(dir, false).render(json("[]"), null, false, Map.of()));
        assertEquals("<s>tools</s>", ChatTemplate.load(dir, true).render(json("[]"), null, false, Map.of()));
        Files.writeString(dir.resolve("chat_template.jinja"), "file{{ eos_token }}\n");
        assertEquals("file</s>", ChatTemplate.load(dir, false).render(json("[]"), null, false, Map.of()));
    }

    @Test
    void aModelFolderWithoutATemplateIsNamed(@TempDir Path dir) throws Exception {
        Files.writeString(dir.resolve("tokenizer_config.json"), "{\"eos_token\": \"</s>\"}");
        var e = assertThrows(TemplateException.class, () -> ChatTemplate.load(dir, false));
        assertTrue(e.getMessage().contains("has no chat_template"), e.getMessage());
    }
}
