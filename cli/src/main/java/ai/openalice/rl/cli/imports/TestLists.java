package ai.openalice.rl.cli.imports;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.List;

/**
 * A dataset's list of test ids in any of the forms datasets ship them: a JSON array, a string
 * holding a JSON array (SWE-bench), or a string holding a Python list literal (SWE-PolyBench:
 * {@code ['a', "b"]}, with backslash escapes).
 */
final class TestLists {
    private TestLists() {}

    /** The ids, or an {@link IllegalArgumentException} saying why they cannot be read. */
    static List<String> of(JsonNode v) {
        if (v == null || v.isNull()) {
            return List.of();
        }
        if (v.isArray()) {
            var out = new ArrayList<String>();
            v.forEach(x -> out.add(x.asText()));
            return out;
        }
        if (!v.isTextual()) {
            throw new IllegalArgumentException("must be a list of test ids, got " + v.getNodeType().name().toLowerCase());
        }
        return literal(v.asText().strip());
    }

    /** A JSON or Python list literal of strings. */
    static List<String> literal(String s) {
        if (s.isEmpty()) {
            return List.of();
        }
        if (!s.startsWith("[") || !s.endsWith("]")) {
            throw new IllegalArgumentException("must be a list literal like ['a', 'b'], got " + abbreviate(s));
        }
        var out = new ArrayList<String>();
        int i = 1;
        int end = s.length() - 1;
        while (true) {
            i = skipSpace(s, i, end);
            if (i >= end) {
                return out;
            }
            char q = s.charAt(i);
            if (q != '\'' && q != '"') {
                throw new IllegalArgumentException("expected a quoted test id at " + i + " of " + abbreviate(s));
            }
            var sb = new StringBuilder();
            i++;
            while (i < end && s.charAt(i) != q) {
                char c = s.charAt(i);
                if (c == '\\' && i + 1 < end) {
                    c = s.charAt(++i);
                }
                sb.append(c);
                i++;
            }
            if (i >= end) {
                throw new IllegalArgumentException("an unterminated string in " + abbreviate(s));
            }
            out.add(sb.toString());
            i = skipSpace(s, i + 1, end);
            if (i < end && s.charAt(i) != ',') {
                throw new IllegalArgumentException("expected ',' at " + i + " of " + abbreviate(s));
            }
            i++;
        }
    }

    private static int skipSpace(String s, int i, int end) {
        while (i < end && Character.isWhitespace(s.charAt(i))) {
            i++;
        }
        return i;
    }

    private static String abbreviate(String s) {
        return s.length() > 60 ? s.substring(0, 60) + "…" : s;
    }
}
