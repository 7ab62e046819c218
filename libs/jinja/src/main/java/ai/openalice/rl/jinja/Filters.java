package ai.openalice.rl.jinja;

import ai.openalice.rl.jinja.Values.Undefined;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/** Jinja's built-in filters that chat templates use, and transformers' {@code tojson}. */
final class Filters {
    private Filters() {}

    static Object apply(String name, Object v, List<Object> args, Map<String, Object> kw) {
        return switch (name) {
            case "tojson" -> PyJson.of(args, kw).dump(v);
            case "trim" -> StrMethods.strip(Values.str(v), args.isEmpty() ? null : Values.str(args.get(0)), true, true);
            case "length", "count" -> (long) length(v);
            case "string" -> Values.str(v);
            case "safe", "e", "escape" -> name.equals("safe") ? v : escape(Values.str(v));
            case "upper" -> Values.str(v).toUpperCase(Locale.ROOT);
            case "lower" -> Values.str(v).toLowerCase(Locale.ROOT);
            case "capitalize" -> StrMethods.bind(Values.str(v), "capitalize").call(List.of(), Map.of());
            case "title" -> StrMethods.title(Values.str(v));
            case "replace" -> StrMethods.bind(Values.str(v), "replace").call(args, kw);
            case "default", "d" -> v instanceof Undefined || (arg(args, kw, 1, "boolean", false) instanceof Boolean b && b && !Values.truthy(v))
                    ? arg(args, kw, 0, "default_value", "") : v;
            case "join" -> join(v, args, kw);
            case "first" -> {
                List<?> l = Values.iterate(v);
                yield l.isEmpty() ? new Undefined("first of an empty sequence") : l.get(0);
            }
            case "last" -> {
                List<?> l = Values.iterate(v);
                yield l.isEmpty() ? new Undefined("last of an empty sequence") : l.get(l.size() - 1);
            }
            case "list" -> new ArrayList<Object>(Values.iterate(v));
            case "reverse" -> reverse(v);
            case "unique" -> new ArrayList<Object>(new LinkedHashSet<Object>(Values.iterate(v)));
            case "items" -> v instanceof Undefined ? List.of() : Builtins.attribute(requireMap(v), "items") instanceof Values.PyCallable c
                    ? c.call(List.of(), Map.of()) : List.of();
            case "map" -> map(v, args, kw);
            case "select", "reject" -> select(v, args, name.equals("select"), false);
            case "selectattr", "rejectattr" -> select(v, args, name.equals("selectattr"), true);
            case "int" -> toInt(v, arg(args, kw, 0, "default", 0L));
            case "float" -> toFloat(v, arg(args, kw, 0, "default", 0.0));
            case "abs" -> v instanceof Double d ? (Object) Math.abs(d) : (Object) Math.abs(Values.integer(v));
            case "round" -> round(v, args);
            case "indent" -> indent(Values.str(v), args, kw);
            default -> throw new TemplateException("unknown filter '" + name + "'");
        };
    }

    static int length(Object v) {
        return switch (v) {
            case String s -> s.codePointCount(0, s.length());
            case List<?> l -> l.size();
            case Map<?, ?> m -> m.size();
            case Undefined u -> 0;
            default -> throw new TemplateException("object of type '" + Values.typeName(v) + "' has no len()");
        };
    }

    private static Object arg(List<Object> args, Map<String, Object> kw, int position, String keyword, Object dflt) {
        return kw.containsKey(keyword) ? kw.get(keyword) : args.size() > position ? args.get(position) : dflt;
    }

    private static Map<?, ?> requireMap(Object v) {
        if (v instanceof Map<?, ?> m) {
            return m;
        }
        throw new TemplateException("items: expected a mapping, got " + Values.typeName(v));
    }

    private static String join(Object v, List<Object> args, Map<String, Object> kw) {
        String sep = Values.str(arg(args, kw, 0, "d", ""));
        Object attr = arg(args, kw, 1, "attribute", null);
        var parts = new ArrayList<String>();
        for (Object o : Values.iterate(v)) {
            parts.add(Values.str(attr == null ? o : Builtins.item(o, attr)));
        }
        return String.join(sep, parts);
    }

    private static Object reverse(Object v) {
        if (v instanceof String s) {
            return new StringBuilder(s).reverse().toString();
        }
        var out = new ArrayList<Object>(Values.iterate(v));
        Collections.reverse(out);
        return out;
    }

    private static List<Object> map(Object v, List<Object> args, Map<String, Object> kw) {
        var out = new ArrayList<Object>();
        for (Object o : Values.iterate(v)) {
            if (kw.containsKey("attribute")) {
                Object x = Builtins.item(o, kw.get("attribute"));
                out.add(x instanceof Undefined && kw.containsKey("default") ? kw.get("default") : x);
            } else if (!args.isEmpty()) {
                out.add(apply(Values.str(args.get(0)), o, args.subList(1, args.size()), Map.of()));
            } else {
                throw new TemplateException("map needs a filter name or attribute=");
            }
        }
        return out;
    }

    /** select/reject(test, arg…) and selectattr/rejectattr(attribute, test, arg…); without a test, truthiness. */
    private static List<Object> select(Object v, List<Object> args, boolean keep, boolean byAttribute) {
        int t = byAttribute ? 1 : 0;
        if (byAttribute && args.isEmpty()) {
            throw new TemplateException("selectattr/rejectattr need an attribute name");
        }
        var out = new ArrayList<Object>();
        for (Object o : Values.iterate(v)) {
            Object subject = byAttribute ? Builtins.item(o, args.get(0)) : o;
            boolean pass = args.size() > t ? Builtins.test(Values.str(args.get(t)), subject, args.subList(t + 1, args.size())) : Values.truthy(subject);
            if (pass == keep) {
                out.add(o);
            }
        }
        return out;
    }

    private static Object toInt(Object v, Object dflt) {
        try {
            return switch (v) {
                case Long l -> l;
                case Double d -> (long) d.doubleValue();
                case Boolean b -> b ? 1L : 0L;
                case String s -> Long.parseLong(s.strip());
                default -> dflt;
            };
        } catch (NumberFormatException e) {
            return dflt;
        }
    }

    private static Object toFloat(Object v, Object dflt) {
        try {
            return v instanceof String s ? Double.parseDouble(s.strip()) : Values.isNumber(v) ? Values.number(v) : dflt;
        } catch (NumberFormatException e) {
            return dflt;
        }
    }

    private static Object round(Object v, List<Object> args) {
        long digits = args.isEmpty() ? 0 : Values.integer(args.get(0));
        double scale = Math.pow(10, digits);
        return Math.rint(Values.number(v) * scale) / scale;
    }

    private static String indent(String s, List<Object> args, Map<String, Object> kw) {
        Object w = arg(args, kw, 0, "width", 4L);
        String pad = w instanceof String p ? p : " ".repeat((int) Values.integer(w));
        boolean first = Values.truthy(arg(args, kw, 1, "first", false));
        boolean blank = Values.truthy(arg(args, kw, 2, "blank", false));
        String[] lines = s.split("\n", -1);
        var sb = new StringBuilder();
        for (int i = 0; i < lines.length; i++) {
            boolean padIt = (i > 0 || first) && (blank || !lines[i].isBlank());
            sb.append(i == 0 ? "" : "\n").append(padIt ? pad : "").append(lines[i]);
        }
        return sb.toString();
    }

    private static String escape(String s) {
        return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace("\"", "&#34;").replace("'", "&#39;");
    }
}
