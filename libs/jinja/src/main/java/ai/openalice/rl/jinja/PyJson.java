package ai.openalice.rl.jinja;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;

/**
 * {@code tojson} as HuggingFace's chat templates see it: Python's {@code json.dumps} with
 * {@code ensure_ascii=False} by default (transformers replaces Jinja's HTML-escaping filter), so
 * separators are {@code ", "} and {@code ": "} without indent and {@code ","} with it.
 */
final class PyJson {
    private final Integer indent;
    private final String itemSep;
    private final String keySep;
    private final boolean sortKeys;
    private final boolean ensureAscii;

    PyJson(Integer indent, String itemSep, String keySep, boolean sortKeys, boolean ensureAscii) {
        this.indent = indent;
        this.itemSep = itemSep != null ? itemSep : indent == null ? ", " : ",";
        this.keySep = keySep != null ? keySep : ": ";
        this.sortKeys = sortKeys;
        this.ensureAscii = ensureAscii;
    }

    /** From the filter's keyword arguments (indent, separators, sort_keys, ensure_ascii). */
    static PyJson of(List<Object> args, Map<String, Object> kwargs) {
        Object indent = kwargs.getOrDefault("indent", args.isEmpty() ? null : args.get(0));
        Object seps = kwargs.get("separators");
        String item = null;
        String key = null;
        if (seps instanceof List<?> l && l.size() == 2) {
            item = Values.str(l.get(0));
            key = Values.str(l.get(1));
        }
        return new PyJson(indent == null ? null : (int) Values.integer(indent), item, key, Values.truthy(kwargs.get("sort_keys")),
                Values.truthy(kwargs.get("ensure_ascii")));
    }

    String dump(Object v) {
        var sb = new StringBuilder();
        write(sb, v, 0);
        return sb.toString();
    }

    private void write(StringBuilder sb, Object v, int level) {
        switch (v) {
            case null -> sb.append("null");
            case Boolean b -> sb.append(b);
            case Long l -> sb.append(l);
            case Double d -> sb.append(Double.isNaN(d) ? "NaN" : Double.isInfinite(d) ? (d > 0 ? "Infinity" : "-Infinity") : Values.floatRepr(d));
            case String s -> string(sb, s);
            case List<?> l -> {
                if (l.isEmpty()) {
                    sb.append("[]");
                    return;
                }
                sb.append('[');
                for (int i = 0; i < l.size(); i++) {
                    sb.append(i == 0 ? "" : itemSep);
                    newline(sb, level + 1);
                    write(sb, l.get(i), level + 1);
                }
                newline(sb, level);
                sb.append(']');
            }
            case Map<?, ?> m -> {
                if (m.isEmpty()) {
                    sb.append("{}");
                    return;
                }
                var keys = new ArrayList<Object>(m.keySet());
                if (sortKeys) {
                    keys.sort(Comparator.comparing(Values::str));
                }
                sb.append('{');
                for (int i = 0; i < keys.size(); i++) {
                    sb.append(i == 0 ? "" : itemSep);
                    newline(sb, level + 1);
                    string(sb, Values.str(keys.get(i)));
                    sb.append(keySep);
                    write(sb, m.get(keys.get(i)), level + 1);
                }
                newline(sb, level);
                sb.append('}');
            }
            case Values.Namespace n -> write(sb, n.attrs, level);
            default -> throw new TemplateException("Object of type " + Values.typeName(v) + " is not JSON serializable");
        }
    }

    private void newline(StringBuilder sb, int level) {
        if (indent != null) {
            sb.append('\n').append(" ".repeat(indent * level));
        }
    }

    private void string(StringBuilder sb, String s) {
        sb.append('"');
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            switch (c) {
                case '"' -> sb.append("\\\"");
                case '\\' -> sb.append("\\\\");
                case '\n' -> sb.append("\\n");
                case '\r' -> sb.append("\\r");
                case '\t' -> sb.append("\\t");
                case '\b' -> sb.append("\\b");
                case '\f' -> sb.append("\\f");
                default -> {
                    if (c < 0x20 || (ensureAscii && c > 0x7e)) {
                        sb.append(String.format("\\u%04x", (int) c));
                    } else {
                        sb.append(c);
                    }
                }
            }
        }
        sb.append('"');
    }
}
