package ai.openalice.rl.cli;

import ai.openalice.rl.jinja.TemplateException;
import ai.openalice.rl.model.chat.ChatTemplate;
import ai.openalice.rl.model.tokenizer.HuggingFaceTokenizer;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code alice-rl model chat}: a conversation rendered by a model's own chat template and tokenized
 * by its tokenizer, as transformers' {@code apply_chat_template} gives them — the command people
 * reach for when a template misbehaves.
 */
@Command(name = "chat", mixinStandardHelpOptions = true,
        description = "Print the prompt a model's chat template renders for --messages, then {\"prompt\": ..., \"ids\": [...]} as the last line."
                + " Exit 2 for bad input (a file that is not a JSON array, a template that fails: its reason).")
final class ChatCommand implements Callable<Integer> {
    private static final ObjectMapper JSON = new ObjectMapper();

    @Spec
    CommandSpec spec;

    @Option(names = "--model", required = true, paramLabel = "DIR", description = "A HuggingFace model folder (tokenizer.json, a chat template).")
    Path model;

    @Option(names = "--messages", required = true, paramLabel = "FILE", description = "A JSON array of messages (role, content, tool_calls, ...).")
    Path messages;

    @Option(names = "--tools", paramLabel = "FILE", description = "A JSON array of tool definitions (OpenAI function tools).")
    Path tools;

    @Option(names = "--no-generation-prompt", description = "Leave out the assistant header that asks the model to answer.")
    boolean noGenerationPrompt;

    @Option(names = "--set", paramLabel = "NAME=VALUE", description = "A variable the template reads (e.g. enable_thinking=false); VALUE as JSON, else a string.")
    Map<String, String> variables = new LinkedHashMap<>();

    @Override
    public Integer call() throws Exception {
        PrintWriter out = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        String prompt;
        int[] ids;
        try {
            JsonNode m = array(messages, "--messages");
            JsonNode t = tools == null ? null : array(tools, "--tools");
            var extra = new LinkedHashMap<String, Object>();
            variables.forEach((k, v) -> extra.put(k, value(v)));
            prompt = ChatTemplate.load(model, t != null).render(m, t, !noGenerationPrompt, extra);
            try (var tokenizer = HuggingFaceTokenizer.forModel(model)) {
                ids = tokenizer.encode(prompt);
            }
        } catch (TemplateException | IllegalArgumentException | IOException e) {
            err.println(e.getMessage());
            return ModelCommand.BAD_INPUT;
        }
        out.print(prompt);
        if (!prompt.endsWith("\n")) {
            out.println();
        }
        var json = JSON.createObjectNode().put("prompt", prompt);
        var a = json.putArray("ids");
        Arrays.stream(ids).forEach(a::add);
        out.println(json);
        return 0;
    }

    private static JsonNode array(Path file, String option) throws IOException {
        if (!Files.isRegularFile(file)) {
            throw new IllegalArgumentException(option + ": " + file + " is not a file");
        }
        JsonNode n;
        try {
            n = JSON.readTree(file.toFile());
        } catch (JsonProcessingException e) {
            throw new IllegalArgumentException(option + ": " + file + " is not JSON: " + e.getOriginalMessage());
        }
        if (n == null || !n.isArray()) {
            throw new IllegalArgumentException(option + ": " + file + " must hold a JSON array");
        }
        return n;
    }

    private static Object value(String text) {
        try {
            JsonNode n = JSON.readTree(text);
            if (n == null || n.isMissingNode()) {
                return text;
            }
            return n.isBoolean() ? (Object) n.asBoolean() : n;
        } catch (JsonProcessingException e) {
            return text; // not JSON: the string itself
        }
    }
}
