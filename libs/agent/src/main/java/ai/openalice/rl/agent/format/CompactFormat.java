package ai.openalice.rl.agent.format;

import ai.openalice.rl.agent.tools.Tool;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.List;
import java.util.Map;

/**
 * A compact text format for the built-in byte-level model: free thinking, then one call.
 *
 * <pre>
 * think: the add function subtracts
 * call: file_editor
 * command: str_replace
 * path: calc/ops.py
 * old_str&lt;&lt;&lt;
 *     return a - b
 * &gt;&gt;&gt;
 * new_str&lt;&lt;&lt;
 *     return a + b
 * &gt;&gt;&gt;
 * </pre>
 *
 * Single-line arguments are {@code key: value}; multi-line ones are {@code key<<<} … {@code >>>}.
 */
public final class CompactFormat implements ToolCallFormat {
    static final String OPEN = "<<<";
    static final String CLOSE = ">>>";

    @Override
    public String name() {
        return "compact";
    }

    @Override
    public String describe(List<Tool> tools) {
        var sb = new StringBuilder("Answer with one tool call: a line 'call: TOOL', then one line 'name: value' per argument;"
                + " a multi-line value is written 'name<<<', its lines, then '>>>'. You may think first on lines starting 'think:'.\nTools:\n");
        for (Tool t : tools) {
            sb.append("- ").append(t.usage()).append('\n');
        }
        return sb.toString();
    }

    @Override
    public Parsed parse(String completion) {
        String[] lines = completion.replace("\r\n", "\n").split("\n", -1);
        int i = 0;
        while (i < lines.length && !lines[i].startsWith("call:")) {
            i++;
        }
        if (i == lines.length) {
            return new Parsed.Unparsable("no 'call: TOOL' line; write 'call: bash' and then 'command: ...' (one argument per line)");
        }
        String tool = lines[i].substring("call:".length()).strip();
        if (tool.isEmpty()) {
            return new Parsed.Unparsable("'call:' names no tool");
        }
        ObjectNode args = JsonNodeFactory.instance.objectNode();
        for (i = i + 1; i < lines.length; i++) {
            String line = lines[i];
            if (line.isBlank()) {
                continue;
            }
            if (line.endsWith(OPEN) && !line.contains(":")) {
                String key = line.substring(0, line.length() - OPEN.length()).strip();
                var value = new StringBuilder();
                int j = i + 1;
                while (j < lines.length && !lines[j].equals(CLOSE)) {
                    value.append(lines[j]).append('\n');
                    j++;
                }
                if (j == lines.length) {
                    return new Parsed.Unparsable("the value of '" + key + "' opened with <<< is not closed by a line '>>>'");
                }
                args.put(key, value.toString());
                i = j;
            } else {
                int colon = line.indexOf(':');
                if (colon <= 0) {
                    return new Parsed.Unparsable("line '" + abbreviate(line) + "' is neither 'name: value' nor 'name<<<'");
                }
                args.put(line.substring(0, colon).strip(), line.substring(colon + 1).strip());
            }
        }
        return new Parsed.Call(tool, args);
    }

    @Override
    public String render(String tool, ObjectNode args) {
        var sb = new StringBuilder("call: ").append(tool).append('\n');
        for (Map.Entry<String, JsonNode> e : args.properties()) {
            String v = e.getValue().isTextual() ? e.getValue().asText() : e.getValue().toString();
            if (v.contains("\n")) {
                sb.append(e.getKey()).append(OPEN).append('\n').append(v.endsWith("\n") ? v : v + "\n").append(CLOSE).append('\n');
            } else {
                sb.append(e.getKey()).append(": ").append(v).append('\n');
            }
        }
        return sb.toString();
    }

    private static String abbreviate(String s) {
        return s.length() > 60 ? s.substring(0, 60) + "…" : s;
    }
}
