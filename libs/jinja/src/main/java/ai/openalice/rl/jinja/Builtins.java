package ai.openalice.rl.jinja;

import ai.openalice.rl.jinja.Values.Namespace;
import ai.openalice.rl.jinja.Values.PyCallable;
import ai.openalice.rl.jinja.Values.Undefined;
import java.time.Clock;
import java.time.LocalDateTime;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** Attribute and item access, slicing, tests, dict methods and the global functions templates call. */
final class Builtins {
    private Builtins() {}

    /** {@code obj.name}: a method of the object first (as Python's getattr), then its item. */
    static Object attribute(Object obj, String name) {
        switch (obj) {
            case Undefined u -> throw new TemplateException(u.hint());
            case null -> throw new TemplateException("'None' has no attribute '" + name + "'");
            case String s -> {
                PyCallable m = StrMethods.bind(s, name);
                if (m != null) {
                    return m;
                }
            }
            case Map<?, ?> m -> {
                PyCallable method = dictMethod(m, name);
                if (method != null) {
                    return method;
                }
                if (m.containsKey(name)) {
                    return m.get(name);
                }
                return new Undefined("'dict object' has no attribute '" + name + "'");
            }
            case Namespace n -> {
                return n.attrs.containsKey(name) ? n.attrs.get(name) : new Undefined("'namespace' has no attribute '" + name + "'");
            }
            default -> {
            }
        }
        return new Undefined("'" + Values.typeName(obj) + " object' has no attribute '" + name + "'");
    }

    /** {@code obj[key]}: the item first, then (for a string key) the attribute, as Jinja's getitem. */
    static Object item(Object obj, Object key) {
        switch (obj) {
            case Undefined u -> throw new TemplateException(u.hint());
            case List<?> l when key instanceof Long || key instanceof Boolean -> {
                long i = Values.integer(key);
                long k = i < 0 ? l.size() + i : i;
                return k >= 0 && k < l.size() ? l.get((int) k) : new Undefined("list index " + i + " out of range (" + l.size() + " items)");
            }
            case String s when key instanceof Long i -> {
                long k = i < 0 ? s.length() + i : i;
                return k >= 0 && k < s.length() ? String.valueOf(s.charAt((int) k)) : new Undefined("string index " + i + " out of range");
            }
            case Map<?, ?> m when m.containsKey(key) -> {
                return m.get(key);
            }
            default -> {
            }
        }
        return key instanceof String name ? attribute(obj, name) : new Undefined("'" + Values.typeName(obj) + " object' has no item " + Values.repr(key));
    }

    /** Python slicing of a list or string, negative indices and steps included. */
    static Object slice(Object obj, Object start, Object stop, Object step) {
        List<?> items = obj instanceof String s ? Values.iterate(s) : obj instanceof List<?> l ? l : null;
        if (items == null) {
            throw new TemplateException("'" + Values.typeName(obj) + "' object is not subscriptable");
        }
        int n = items.size();
        long st = step == null ? 1 : Values.integer(step);
        if (st == 0) {
            throw new TemplateException("slice step cannot be zero");
        }
        long lo = bound(start, n, st > 0 ? 0 : n - 1, st);
        long hi = bound(stop, n, st > 0 ? n : -1, st);
        var out = new ArrayList<Object>();
        for (long i = lo; st > 0 ? i < hi : i > hi; i += st) {
            out.add(items.get((int) i));
        }
        if (obj instanceof String) {
            var sb = new StringBuilder();
            out.forEach(c -> sb.append((String) c));
            return sb.toString();
        }
        return out;
    }

    private static long bound(Object v, int n, long dflt, long step) {
        if (v == null) {
            return dflt;
        }
        long i = Values.integer(v);
        if (i < 0) {
            i += n;
        }
        return step > 0 ? Math.max(0, Math.min(i, n)) : Math.max(-1, Math.min(i, n - 1));
    }

    private static PyCallable dictMethod(Map<?, ?> m, String name) {
        return switch (name) {
            case "get" -> (args, kw) -> m.containsKey(args.get(0)) ? m.get(args.get(0)) : args.size() > 1 ? args.get(1) : null;
            case "items" -> (args, kw) -> m.entrySet().stream().map(e -> (Object) Arrays.asList(e.getKey(), e.getValue())).toList();
            case "keys" -> (args, kw) -> new ArrayList<Object>(m.keySet());
            case "values" -> (args, kw) -> new ArrayList<Object>(m.values());
            default -> null;
        };
    }

    static boolean test(String name, Object v, List<Object> args) {
        return switch (name) {
            case "defined" -> !(v instanceof Undefined);
            case "undefined" -> v instanceof Undefined;
            case "none" -> v == null;
            case "boolean" -> v instanceof Boolean;
            case "true" -> Boolean.TRUE.equals(v);
            case "false" -> Boolean.FALSE.equals(v);
            case "string" -> v instanceof String;
            case "number" -> v instanceof Long || v instanceof Double;
            case "integer" -> v instanceof Long;
            case "float" -> v instanceof Double;
            case "mapping" -> v instanceof Map<?, ?>;
            case "sequence" -> v instanceof List<?> || v instanceof String || v instanceof Map<?, ?>;
            case "iterable" -> v instanceof List<?> || v instanceof String || v instanceof Map<?, ?>;
            case "callable" -> v instanceof PyCallable;
            case "equalto", "eq", "==", "sameas" -> Values.equal(v, arg(name, args));
            case "ne", "!=" -> !Values.equal(v, arg(name, args));
            case "gt", "greaterthan", ">" -> Values.compare(v, arg(name, args)) > 0;
            case "ge", ">=" -> Values.compare(v, arg(name, args)) >= 0;
            case "lt", "lessthan", "<" -> Values.compare(v, arg(name, args)) < 0;
            case "le", "<=" -> Values.compare(v, arg(name, args)) <= 0;
            case "in" -> Arithmetic.contains(arg(name, args), v);
            case "odd" -> Values.integer(v) % 2 != 0;
            case "even" -> Values.integer(v) % 2 == 0;
            case "divisibleby" -> Values.integer(v) % Values.integer(arg(name, args)) == 0;
            case "lower" -> v instanceof String s && s.equals(s.toLowerCase());
            case "upper" -> v instanceof String s && s.equals(s.toUpperCase());
            default -> throw new TemplateException("unknown test '" + name + "'");
        };
    }

    private static Object arg(String test, List<Object> args) {
        if (args.isEmpty()) {
            throw new TemplateException("test '" + test + "' needs an argument");
        }
        return args.get(0);
    }

    /**
     * The functions a HuggingFace chat template may call: {@code raise_exception},
     * {@code strftime_now} (transformers adds both), {@code range}, {@code namespace}, {@code dict}.
     */
    static Map<String, Object> globals(Clock clock) {
        var g = new LinkedHashMap<String, Object>();
        g.put("raise_exception", (PyCallable) (args, kw) -> {
            throw new TemplateException("the template raised: " + (args.isEmpty() ? "" : Values.str(args.get(0))));
        });
        g.put("strftime_now", (PyCallable) (args, kw) -> Strftime.format(Values.str(args.get(0)), LocalDateTime.now(clock)));
        g.put("range", (PyCallable) (args, kw) -> {
            long start = args.size() > 1 ? Values.integer(args.get(0)) : 0;
            long stop = Values.integer(args.get(args.size() > 1 ? 1 : 0));
            long step = args.size() > 2 ? Values.integer(args.get(2)) : 1;
            if (step == 0) {
                throw new TemplateException("range() step must not be zero");
            }
            var out = new ArrayList<Object>();
            for (long i = start; step > 0 ? i < stop : i > stop; i += step) {
                out.add(i);
            }
            return out;
        });
        g.put("namespace", (PyCallable) (args, kw) -> {
            var ns = new Namespace();
            for (Object a : args) {
                if (a instanceof Map<?, ?> m) {
                    m.forEach((k, x) -> ns.attrs.put(Values.str(k), x));
                }
            }
            ns.attrs.putAll(kw);
            return ns;
        });
        g.put("dict", (PyCallable) (args, kw) -> new LinkedHashMap<String, Object>(kw));
        return g;
    }
}
