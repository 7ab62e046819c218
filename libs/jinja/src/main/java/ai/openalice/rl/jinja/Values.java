package ai.openalice.rl.jinja;

import com.fasterxml.jackson.databind.JsonNode;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * The template's value model, as Python sees it: {@code String}, {@code Long}, {@code Double},
 * {@code Boolean}, {@code null} (None), {@code List} (list or tuple), {@code Map} (dict, insertion
 * ordered), {@link Undefined}, {@link Namespace} and {@link PyCallable}.
 */
final class Values {
    private Values() {}

    /** A name or attribute that does not exist: empty when printed, false, iterable as nothing; an error when used further. */
    record Undefined(String hint) {
        static final Undefined ANONYMOUS = new Undefined("value is undefined");
    }

    /** What {@code namespace(...)} makes: the one object a template may assign attributes of. */
    static final class Namespace {
        final Map<String, Object> attrs = new LinkedHashMap<>();
    }

    @FunctionalInterface
    interface PyCallable {
        Object call(List<Object> args, Map<String, Object> kwargs);
    }

    /** A JSON tree (messages, tools) as template values. */
    static Object of(JsonNode n) {
        if (n == null || n.isNull() || n.isMissingNode()) {
            return null;
        }
        if (n.isTextual()) {
            return n.asText();
        }
        if (n.isBoolean()) {
            return n.asBoolean();
        }
        if (n.isIntegralNumber()) {
            return n.asLong();
        }
        if (n.isNumber()) {
            return n.asDouble();
        }
        if (n.isArray()) {
            var out = new ArrayList<>(n.size());
            n.forEach(e -> out.add(of(e)));
            return out;
        }
        var out = new LinkedHashMap<String, Object>();
        n.properties().forEach(e -> out.put(e.getKey(), of(e.getValue())));
        return out;
    }

    static boolean truthy(Object v) {
        return switch (v) {
            case null -> false;
            case Undefined u -> false;
            case Boolean b -> b;
            case Long l -> l != 0;
            case Double d -> d != 0;
            case String s -> !s.isEmpty();
            case List<?> l -> !l.isEmpty();
            case Map<?, ?> m -> !m.isEmpty();
            default -> true;
        };
    }

    static String typeName(Object v) {
        return switch (v) {
            case null -> "NoneType";
            case Undefined u -> "Undefined";
            case Boolean b -> "bool";
            case Long l -> "int";
            case Double d -> "float";
            case String s -> "str";
            case List<?> l -> "list";
            case Map<?, ?> m -> "dict";
            case Namespace n -> "Namespace";
            default -> "function";
        };
    }

    /** Python's {@code str(v)}; an undefined value prints as nothing. */
    static String str(Object v) {
        return switch (v) {
            case null -> "None";
            case String s -> s;
            case Undefined u -> "";
            default -> repr(v);
        };
    }

    /** Python's {@code repr(v)}. */
    static String repr(Object v) {
        return switch (v) {
            case null -> "None";
            case Undefined u -> "";
            case Boolean b -> b ? "True" : "False";
            case Long l -> l.toString();
            case Double d -> floatRepr(d);
            case String s -> quote(s);
            case List<?> l -> {
                var sb = new StringBuilder("[");
                for (int i = 0; i < l.size(); i++) {
                    sb.append(i == 0 ? "" : ", ").append(repr(l.get(i)));
                }
                yield sb.append(']').toString();
            }
            case Map<?, ?> m -> {
                var sb = new StringBuilder("{");
                m.forEach((k, x) -> sb.append(sb.length() == 1 ? "" : ", ").append(repr(k)).append(": ").append(repr(x)));
                yield sb.append('}').toString();
            }
            case Namespace n -> "<Namespace " + repr(n.attrs) + ">";
            default -> "<function>";
        };
    }

    private static String quote(String s) {
        char q = s.indexOf('\'') >= 0 && s.indexOf('"') < 0 ? '"' : '\'';
        var sb = new StringBuilder().append(q);
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            switch (c) {
                case '\\' -> sb.append("\\\\");
                case '\n' -> sb.append("\\n");
                case '\r' -> sb.append("\\r");
                case '\t' -> sb.append("\\t");
                default -> {
                    if (c == q) {
                        sb.append('\\');
                    }
                    sb.append(c);
                }
            }
        }
        return sb.append(q).toString();
    }

    /** Python's float repr: shortest round-trip digits, exponent form below 1e-4 and from 1e16. */
    static String floatRepr(double d) {
        if (Double.isNaN(d)) {
            return "nan";
        }
        if (Double.isInfinite(d)) {
            return d > 0 ? "inf" : "-inf";
        }
        if (d == Math.rint(d) && Math.abs(d) < 1e16) {
            return new BigDecimal(d).toPlainString() + ".0";
        }
        double a = Math.abs(d);
        var bd = new BigDecimal(Double.toString(d));
        if (a >= 1e-4 && a < 1e16) {
            return bd.toPlainString();
        }
        String unscaled = bd.unscaledValue().abs().toString();
        int exp = unscaled.length() - 1 - bd.scale();
        String digits = unscaled.replaceAll("0+$", "");
        String mant = digits.length() == 1 ? digits : digits.charAt(0) + "." + digits.substring(1);
        return (d < 0 ? "-" : "") + mant + "e" + (exp < 0 ? "-" : "+") + (Math.abs(exp) < 10 ? "0" : "") + Math.abs(exp);
    }

    static boolean equal(Object a, Object b) {
        if (a instanceof Undefined || b instanceof Undefined) {
            return a instanceof Undefined && b instanceof Undefined;
        }
        if (isNumber(a) && isNumber(b)) {
            return a instanceof Double || b instanceof Double ? number(a) == number(b) : integer(a) == integer(b);
        }
        if (a instanceof List<?> x && b instanceof List<?> y) {
            if (x.size() != y.size()) {
                return false;
            }
            for (int i = 0; i < x.size(); i++) {
                if (!equal(x.get(i), y.get(i))) {
                    return false;
                }
            }
            return true;
        }
        if (a instanceof Map<?, ?> x && b instanceof Map<?, ?> y) {
            if (!x.keySet().equals(y.keySet())) {
                return false;
            }
            for (var k : x.keySet()) {
                if (!equal(x.get(k), y.get(k))) {
                    return false;
                }
            }
            return true;
        }
        return Objects.equals(a, b);
    }

    static boolean isNumber(Object v) {
        return v instanceof Long || v instanceof Double || v instanceof Boolean;
    }

    static double number(Object v) {
        return switch (v) {
            case Long l -> l;
            case Double d -> d;
            case Boolean b -> b ? 1 : 0;
            default -> throw new TemplateException("expected a number, got " + typeName(v));
        };
    }

    static long integer(Object v) {
        return switch (v) {
            case Long l -> l;
            case Boolean b -> b ? 1 : 0;
            case Double d when d == Math.rint(d) -> d.longValue();
            default -> throw new TemplateException("expected an integer, got " + typeName(v) + " " + repr(v));
        };
    }

    /** Iterating: a list's items, a dict's keys, a string's characters, nothing for undefined. */
    static List<?> iterate(Object v) {
        return switch (v) {
            case List<?> l -> l;
            case Map<?, ?> m -> new ArrayList<>(m.keySet());
            case String s -> s.codePoints().mapToObj(Character::toString).toList();
            case Undefined u -> List.of();
            default -> throw new TemplateException("'" + typeName(v) + "' object is not iterable");
        };
    }

    static int compare(Object a, Object b) {
        if (isNumber(a) && isNumber(b)) {
            return Double.compare(number(a), number(b));
        }
        if (a instanceof String x && b instanceof String y) {
            return x.compareTo(y);
        }
        throw new TemplateException("cannot compare " + typeName(a) + " with " + typeName(b));
    }
}
