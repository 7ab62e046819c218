package ai.openalice.rl.agent.tools;

import ai.openalice.rl.sandbox.SandboxFileException;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** The tool set of an episode, by name; turns every agent-side mistake into an observation. */
public final class Tools {
    private final Map<String, Tool> byName = new LinkedHashMap<>();

    public Tools(List<Tool> tools) {
        for (Tool t : tools) {
            if (byName.putIfAbsent(t.name(), t) != null) {
                throw new IllegalArgumentException("two tools named " + t.name());
            }
        }
    }

    /** bash, search, file_editor, submit. */
    public static Tools standard() {
        return new Tools(List.of(new BashTool(), new SearchTool(), new FileEditorTool(), new SubmitTool()));
    }

    /** The tools as OpenAI function definitions ({@code type: function}, name, description, parameters). */
    public ArrayNode definitions() {
        var out = JsonNodeFactory.instance.arrayNode();
        for (Tool t : byName.values()) {
            var f = out.addObject().put("type", "function").putObject("function");
            String usage = t.usage();
            int dash = usage.indexOf(" — ");
            f.put("name", t.name()).put("description", dash >= 0 ? usage.substring(dash + 3) : usage);
            f.set("parameters", t.parameters());
        }
        return out;
    }

    static ObjectNode schema(String json) {
        try {
            return (ObjectNode) new ObjectMapper().readTree(json);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("a tool's schema is not JSON", e);
        }
    }

    public List<Tool> all() {
        return List.copyOf(byName.values());
    }

    /**
     * Runs a call. Unknown tools, bad arguments, missing files and path escapes become error
     * observations; a {@code SandboxException} (infrastructure) propagates to end the episode as
     * {@code infra_error}.
     */
    public Observation call(String tool, ObjectNode args, ToolContext ctx) {
        Tool t = byName.get(tool);
        if (t == null) {
            return Observation.error("unknown tool '" + tool + "'; available: " + String.join(", ", byName.keySet()));
        }
        try {
            return t.run(args == null ? JsonNodeFactory.instance.objectNode() : args, ctx);
        } catch (Args.Bad | SandboxFileException e) {
            return Observation.error(e.getMessage());
        }
    }
}
