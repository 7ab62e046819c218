package ai.openalice.rl.jinja;

import ai.openalice.rl.jinja.Values.Undefined;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/** Binary operators with Python's semantics (int stays int, {@code /} is true division, {@code //} and {@code %} floor). */
final class Arithmetic {
    private Arithmetic() {}

    static Object apply(String op, Object a, Object b) {
        return switch (op) {
            case "==" -> Values.equal(a, b);
            case "!=" -> !Values.equal(a, b);
            case "<" -> Values.compare(a, b) < 0;
            case "<=" -> Values.compare(a, b) <= 0;
            case ">" -> Values.compare(a, b) > 0;
            case ">=" -> Values.compare(a, b) >= 0;
            case "in" -> contains(b, a);
            case "not in" -> !contains(b, a);
            case "~" -> Values.str(a) + Values.str(b);
            case "+" -> plus(a, b);
            case "-" -> numeric(op, a, b);
            case "*" -> times(a, b);
            case "/" -> {
                double d = Values.number(b);
                if (d == 0) {
                    throw new TemplateException("division by zero");
                }
                yield Values.number(a) / d;
            }
            case "//", "%", "**" -> numeric(op, a, b);
            default -> throw new TemplateException("unknown operator " + op);
        };
    }

    static boolean contains(Object container, Object item) {
        return switch (container) {
            case String s when item instanceof String x -> s.contains(x);
            case String s -> throw new TemplateException("'in <string>' requires string as left operand, not " + Values.typeName(item));
            case List<?> l -> l.stream().anyMatch(x -> Values.equal(x, item));
            case Map<?, ?> m -> m.containsKey(item);
            case Values.Namespace n -> n.attrs.containsKey(item);
            case Undefined u -> false;
            default -> throw new TemplateException("argument of type '" + Values.typeName(container) + "' is not iterable");
        };
    }

    private static Object plus(Object a, Object b) {
        if (a instanceof String x && b instanceof String y) {
            return x + y;
        }
        if (a instanceof List<?> x && b instanceof List<?> y) {
            var out = new ArrayList<Object>(x);
            out.addAll(y);
            return out;
        }
        if (Values.isNumber(a) && Values.isNumber(b)) {
            return numeric("+", a, b);
        }
        throw mismatch("+", a, b);
    }

    private static Object times(Object a, Object b) {
        if (a instanceof String s && b instanceof Long n) {
            return s.repeat((int) Math.max(0, n));
        }
        if (a instanceof Long n && b instanceof String s) {
            return s.repeat((int) Math.max(0, n));
        }
        if (a instanceof List<?> l && b instanceof Long n) {
            var out = new ArrayList<Object>();
            for (long k = 0; k < n; k++) {
                out.addAll(l);
            }
            return out;
        }
        return numeric("*", a, b);
    }

    private static Object numeric(String op, Object a, Object b) {
        if (!Values.isNumber(a) || !Values.isNumber(b)) {
            throw mismatch(op, a, b);
        }
        if (a instanceof Double || b instanceof Double || (op.equals("**") && Values.integer(b) < 0)) {
            double x = Values.number(a);
            double y = Values.number(b);
            return switch (op) {
                case "+" -> x + y;
                case "-" -> x - y;
                case "*" -> x * y;
                case "//" -> Math.floor(x / nonZero(y));
                case "%" -> x - Math.floor(x / nonZero(y)) * y;
                default -> Math.pow(x, y);
            };
        }
        long x = Values.integer(a);
        long y = Values.integer(b);
        return switch (op) {
            case "+" -> x + y;
            case "-" -> x - y;
            case "*" -> x * y;
            case "//" -> Math.floorDiv(x, (long) nonZero(y));
            case "%" -> Math.floorMod(x, (long) nonZero(y));
            default -> (long) Math.pow(x, y);
        };
    }

    private static double nonZero(double y) {
        if (y == 0) {
            throw new TemplateException("division by zero");
        }
        return y;
    }

    private static TemplateException mismatch(String op, Object a, Object b) {
        if (a instanceof Undefined u) {
            return new TemplateException(u.hint());
        }
        if (b instanceof Undefined u) {
            return new TemplateException(u.hint());
        }
        return new TemplateException("unsupported operand type(s) for " + op + ": '" + Values.typeName(a) + "' and '" + Values.typeName(b) + "'");
    }
}
