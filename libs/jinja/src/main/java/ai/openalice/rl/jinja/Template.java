package ai.openalice.rl.jinja;

import com.fasterxml.jackson.databind.JsonNode;
import java.time.Clock;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A parsed Jinja template: the engine's one entry. Parsing is Jinja's with {@code trim_blocks} and
 * {@code lstrip_blocks} on (as HuggingFace renders chat templates); the subset is what chat
 * templates use, and a template using anything else fails to parse with a {@link TemplateException}
 * naming the line and the tag, filter or test.
 */
public final class Template {
    private final List<Node.Stmt> body;

    private Template(List<Node.Stmt> body) {
        this.body = body;
    }

    /** Parses {@code source}; a {@link TemplateException} names the line and what is wrong. */
    public static Template parse(String source) {
        return new Template(Parser.parse(source));
    }

    /**
     * Renders with {@code variables} in scope beside Jinja's globals ({@code range}, {@code dict},
     * {@code namespace}, {@code raise_exception}, and {@code strftime_now} reading {@code clock}). A
     * {@link JsonNode} value becomes the Python value it spells (objects as dicts in their order,
     * integers as ints); strings, booleans, longs, doubles and null are taken as they are.
     */
    public String render(Map<String, ?> variables, Clock clock) {
        var globals = new LinkedHashMap<String, Object>(Builtins.globals(clock));
        variables.forEach((k, v) -> globals.put(k, v instanceof JsonNode n ? Values.of(n) : v));
        return new Interpreter(globals).render(body);
    }
}
