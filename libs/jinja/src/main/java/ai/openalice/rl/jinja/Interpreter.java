package ai.openalice.rl.jinja;

import ai.openalice.rl.jinja.Node.Expr;
import ai.openalice.rl.jinja.Node.Stmt;
import ai.openalice.rl.jinja.Values.Namespace;
import ai.openalice.rl.jinja.Values.PyCallable;
import ai.openalice.rl.jinja.Values.Undefined;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Runs a parsed template. Scoping as in Jinja: a {@code for} iteration and a macro call have their
 * own scope (a {@code set} inside does not leak out, which is why templates use {@code namespace}),
 * an {@code if} does not.
 */
final class Interpreter {
    private static final class Scope {
        final Map<String, Object> vars = new HashMap<>();
        final Scope parent;

        Scope(Scope parent) {
            this.parent = parent;
        }

        Object get(String name) {
            for (Scope s = this; s != null; s = s.parent) {
                if (s.vars.containsKey(name)) {
                    return s.vars.get(name);
                }
            }
            return new Undefined("'" + name + "' is undefined");
        }
    }

    private static final class LoopSignal extends RuntimeException {
        final boolean isBreak;

        LoopSignal(boolean isBreak) {
            super(null, null, false, false);
            this.isBreak = isBreak;
        }
    }

    private static final LoopSignal BREAK = new LoopSignal(true);
    private static final LoopSignal CONTINUE = new LoopSignal(false);

    private final Scope root;
    private int line;

    Interpreter(Map<String, Object> globals) {
        this.root = new Scope(null);
        root.vars.putAll(globals);
    }

    String render(List<Stmt> body) {
        var out = new StringBuilder();
        try {
            run(body, root, out);
        } catch (TemplateException e) {
            throw e.getMessage().startsWith("line ") ? e : TemplateException.at(line, e.getMessage());
        } catch (LoopSignal e) {
            throw TemplateException.at(line, "{% break %} or {% continue %} outside a loop");
        }
        return out.toString();
    }

    private void run(List<Stmt> body, Scope scope, StringBuilder out) {
        for (Stmt s : body) {
            line = s.line();
            switch (s) {
                case Node.Text t -> out.append(t.text());
                case Node.Output o -> out.append(Values.str(eval(o.expr(), scope)));
                case Node.If i -> {
                    boolean done = false;
                    for (int k = 0; k < i.conditions().size() && !done; k++) {
                        if (Values.truthy(eval(i.conditions().get(k), scope))) {
                            run(i.bodies().get(k), scope, out);
                            done = true;
                        }
                    }
                    if (!done) {
                        run(i.otherwise(), scope, out);
                    }
                }
                case Node.For f -> loop(f, scope, out);
                case Node.Set st -> assign(st, scope);
                case Node.Macro m -> scope.vars.put(m.name(), macro(m));
                case Node.Break b -> throw BREAK;
                case Node.Continue c -> throw CONTINUE;
            }
        }
    }

    private void loop(Node.For f, Scope scope, StringBuilder out) {
        var items = new ArrayList<Object>();
        for (Object item : Values.iterate(eval(f.iterable(), scope))) {
            if (f.filter() == null || Values.truthy(eval(f.filter(), bind(f, item, new Scope(scope))))) {
                items.add(item);
            }
        }
        if (items.isEmpty()) {
            run(f.otherwise(), scope, out);
            return;
        }
        int n = items.size();
        for (int i = 0; i < n; i++) {
            Scope inner = bind(f, items.get(i), new Scope(scope));
            var loop = new LinkedHashMap<String, Object>();
            loop.put("index0", (long) i);
            loop.put("index", (long) i + 1);
            loop.put("revindex0", (long) (n - 1 - i));
            loop.put("revindex", (long) (n - i));
            loop.put("first", i == 0);
            loop.put("last", i == n - 1);
            loop.put("length", (long) n);
            loop.put("previtem", i > 0 ? items.get(i - 1) : new Undefined("there is no previous item"));
            loop.put("nextitem", i < n - 1 ? items.get(i + 1) : new Undefined("there is no next item"));
            int index = i;
            loop.put("cycle", (PyCallable) (args, kw) -> args.get(index % args.size()));
            inner.vars.put("loop", loop);
            try {
                run(f.body(), inner, out);
            } catch (LoopSignal signal) {
                if (signal.isBreak) {
                    break;
                }
            }
        }
    }

    private Scope bind(Node.For f, Object item, Scope scope) {
        if (f.targets().size() == 1) {
            scope.vars.put(f.targets().get(0), item);
            return scope;
        }
        List<?> parts = Values.iterate(item);
        if (parts.size() != f.targets().size()) {
            throw new TemplateException("cannot unpack " + parts.size() + " values into " + f.targets());
        }
        for (int k = 0; k < parts.size(); k++) {
            scope.vars.put(f.targets().get(k), parts.get(k));
        }
        return scope;
    }

    private void assign(Node.Set st, Scope scope) {
        Object value;
        if (st.body() != null) {
            var sb = new StringBuilder();
            run(st.body(), scope, sb);
            value = sb.toString();
        } else {
            value = eval(st.value(), scope);
        }
        if (st.attr() != null) {
            if (!(scope.get(st.names().get(0)) instanceof Namespace ns)) {
                throw new TemplateException("cannot assign attribute '" + st.attr() + "' of '" + st.names().get(0) + "': only a namespace() has assignable attributes");
            }
            ns.attrs.put(st.attr(), value);
        } else if (st.names().size() == 1) {
            scope.vars.put(st.names().get(0), value);
        } else {
            List<?> parts = Values.iterate(value);
            if (parts.size() != st.names().size()) {
                throw new TemplateException("cannot unpack " + parts.size() + " values into " + st.names());
            }
            for (int k = 0; k < parts.size(); k++) {
                scope.vars.put(st.names().get(k), parts.get(k));
            }
        }
    }

    private PyCallable macro(Node.Macro m) {
        return (args, kwargs) -> {
            var scope = new Scope(root);
            for (int k = 0; k < m.params().size(); k++) {
                String p = m.params().get(k);
                Object v = k < args.size() ? args.get(k) : kwargs.containsKey(p) ? kwargs.get(p)
                        : m.defaults().get(k) != null ? eval(m.defaults().get(k), scope) : new Undefined("macro argument '" + p + "' was not given");
                scope.vars.put(p, v);
            }
            var sb = new StringBuilder();
            int saved = line;
            run(m.body(), scope, sb);
            line = saved;
            return sb.toString();
        };
    }

    Object eval(Expr e, Scope scope) {
        return switch (e) {
            case Node.Literal l -> l.value();
            case Node.Name n -> scope.get(n.name());
            case Node.Attr a -> Builtins.attribute(eval(a.target(), scope), a.name());
            case Node.Item i -> Builtins.item(eval(i.target(), scope), eval(i.key(), scope));
            case Node.Slice s -> Builtins.slice(eval(s.target(), scope), optional(s.start(), scope), optional(s.stop(), scope), optional(s.step(), scope));
            case Node.Call c -> call(eval(c.fn(), scope), values(c.args(), scope), values(c.kwargs(), scope));
            case Node.Filter f -> Filters.apply(f.name(), eval(f.target(), scope), values(f.args(), scope), values(f.kwargs(), scope));
            case Node.Test t -> t.negated() != Builtins.test(t.name(), eval(t.target(), scope), values(t.args(), scope));
            case Node.Binary b -> binary(b, scope);
            case Node.Unary u -> unary(u.op(), eval(u.operand(), scope));
            case Node.Conditional c -> Values.truthy(eval(c.condition(), scope)) ? eval(c.then(), scope) : eval(c.otherwise(), scope);
            case Node.ListOf l -> values(l.items(), scope);
            case Node.DictOf d -> {
                var m = new LinkedHashMap<String, Object>();
                for (int k = 0; k < d.keys().size(); k++) {
                    m.put(Values.str(eval(d.keys().get(k), scope)), eval(d.values().get(k), scope));
                }
                yield m;
            }
        };
    }

    private Object optional(Expr e, Scope scope) {
        return e == null ? null : eval(e, scope);
    }

    private List<Object> values(List<Expr> exprs, Scope scope) {
        var out = new ArrayList<Object>(exprs.size());
        for (Expr x : exprs) {
            out.add(eval(x, scope));
        }
        return out;
    }

    private Map<String, Object> values(Map<String, Expr> exprs, Scope scope) {
        var out = new LinkedHashMap<String, Object>();
        exprs.forEach((k, x) -> out.put(k, eval(x, scope)));
        return out;
    }

    private static Object call(Object fn, List<Object> args, Map<String, Object> kwargs) {
        if (fn instanceof PyCallable c) {
            return c.call(args, kwargs);
        }
        throw new TemplateException(fn instanceof Undefined u ? u.hint() : "'" + Values.typeName(fn) + "' object is not callable");
    }

    private Object binary(Node.Binary b, Scope scope) {
        Object left = eval(b.left(), scope);
        switch (b.op()) {
            case "and" -> {
                return Values.truthy(left) ? eval(b.right(), scope) : left;
            }
            case "or" -> {
                return Values.truthy(left) ? left : eval(b.right(), scope);
            }
            default -> {
                return Arithmetic.apply(b.op(), left, eval(b.right(), scope));
            }
        }
    }

    private static Object unary(String op, Object v) {
        return switch (op) {
            case "not" -> !Values.truthy(v);
            case "-" -> v instanceof Double d ? (Object) (-d) : (Object) (-Values.integer(v));
            default -> v;
        };
    }
}
