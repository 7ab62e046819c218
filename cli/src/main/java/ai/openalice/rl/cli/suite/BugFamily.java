package ai.openalice.rl.cli.suite;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * One family of seeded bugs: a small Python function (names, constants and inputs drawn from the
 * seed), the single line that breaks it, and test cases whose expected and buggy results are
 * computed here, in Java, from the same semantics — so the generator needs no Python.
 */
public record BugFamily(String id, Function<Random, Instance> make) {

    /** A test case: the call's arguments, the right result and what the buggy code returns (Python literals). */
    public record Case(String args, String expected, String buggy) {}

    /**
     * A drawn function: its name, parameters, docstring, body (fixed), the index of the line the
     * bug replaces and the buggy line, and cases on which fixed and buggy results differ.
     */
    public record Instance(String name, String params, String doc, List<String> body, int bugLine, String buggyLine, List<Case> cases) {}

    static String pick(Random r, String... options) {
        return options[r.nextInt(options.length)];
    }

    static String py(long v) {
        return Long.toString(v);
    }

    static String py(boolean v) {
        return v ? "True" : "False";
    }

    static String py(String s) {
        return "'" + s + "'";
    }

    static String py(List<Integer> xs) {
        return xs.toString();
    }

    static List<Integer> ints(Random r, int n, int lo, int hi) {
        var out = new ArrayList<Integer>();
        for (int i = 0; i < n; i++) {
            out.add(lo + r.nextInt(hi - lo + 1));
        }
        return out;
    }

    /** Draws cases until {@code n} of them tell the fixed and buggy code apart. */
    static List<Case> cases(int n, Supplier<Case> draw) {
        var out = new ArrayList<Case>();
        for (int guard = 0; out.size() < n && guard < 1000; guard++) {
            Case c = draw.get();
            if (!c.expected().equals(c.buggy()) && out.stream().noneMatch(o -> o.args().equals(c.args()))) {
                out.add(c);
            }
        }
        if (out.size() < n) {
            throw new IllegalStateException("could not draw " + n + " telling cases");
        }
        return out;
    }

    static final String[] WORDS = {"alpha", "Bravo", "charlie", "Delta", "echo", "Foxtrot", "golf", "Hotel", "india", "Juliet"};

    /** The families; {@link TinySwe#HELD_OUT_FAMILIES} never appear in the training split. */
    public static final List<BugFamily> ALL = List.of(
            new BugFamily("flipped_comparison", r -> {
                String a = pick(r, "a", "x", "first"), b = pick(r, "b", "y", "second");
                return new Instance(pick(r, "larger", "max_of", "pick_larger"), a + ", " + b, "Return the larger of the two numbers.",
                        List.of("if " + a + " > " + b + ":", "    return " + a, "return " + b), 0, "if " + a + " < " + b + ":",
                        cases(2, () -> {
                            int x = r.nextInt(200) - 50, y = r.nextInt(200) - 50;
                            return new Case(x + ", " + y, py(Math.max(x, y)), py(Math.min(x, y)));
                        }));
            }),
            new BugFamily("off_by_one_bound", r -> {
                String n = pick(r, "n", "limit", "upto");
                return new Instance(pick(r, "sum_up_to", "triangle", "total_to"), n, "Return 1 + 2 + ... + " + n + ".",
                        List.of("total = 0", "for i in range(1, " + n + " + 1):", "    total += i", "return total"), 1,
                        "for i in range(1, " + n + "):", cases(2, () -> {
                            int k = 1 + r.nextInt(40);
                            return new Case(py(k), py((long) k * (k + 1) / 2), py((long) k * (k - 1) / 2));
                        }));
            }),
            new BugFamily("wrong_operator", r -> {
                String w = pick(r, "width", "w", "cols"), h = pick(r, "height", "h", "rows");
                return new Instance(pick(r, "area", "cells", "grid_size"), w + ", " + h, "Return the number of cells of a " + w + " by " + h + " grid.",
                        List.of("return " + w + " * " + h), 0, "return " + w + " + " + h, cases(2, () -> {
                            int x = 1 + r.nextInt(30), y = 1 + r.nextInt(30);
                            return new Case(x + ", " + y, py((long) x * y), py(x + y));
                        }));
            }),
            new BugFamily("wrong_constant", r -> {
                String c = pick(r, "celsius", "c", "degrees");
                int wrong = new int[] {23, 31, 33}[r.nextInt(3)];
                return new Instance(pick(r, "to_fahrenheit", "fahrenheit", "c_to_f"), c,
                        "Convert " + c + " (whole degrees Celsius) to whole degrees Fahrenheit, rounding down.",
                        List.of("return " + c + " * 9 // 5 + 32"), 0, "return " + c + " * 9 // 5 + " + wrong, cases(2, () -> {
                            int x = r.nextInt(140) - 40;
                            return new Case(py(x), py(Math.floorDiv(x * 9, 5) + 32), py(Math.floorDiv(x * 9, 5) + wrong));
                        }));
            }),
            new BugFamily("swapped_arguments", r -> {
                String b = pick(r, "base", "b", "root"), e = pick(r, "exponent", "e", "power_of");
                return new Instance(pick(r, "power", "raise_to", "pow_int"), b + ", " + e, "Return " + b + " raised to the power " + e + ".",
                        List.of("return " + b + " ** " + e), 0, "return " + e + " ** " + b, cases(2, () -> {
                            int x = 2 + r.nextInt(6), y = 1 + r.nextInt(5);
                            return new Case(x + ", " + y, py((long) Math.pow(x, y)), py((long) Math.pow(y, x)));
                        }));
            }),
            new BugFamily("wrong_variable_returned", r -> {
                String v = pick(r, "values", "numbers", "items");
                return new Instance(pick(r, "count_positive", "positives", "how_many_positive"), v, "Return how many of the " + v + " are > 0.",
                        List.of("count = 0", "total = 0", "for v in " + v + ":", "    if v > 0:", "        count += 1", "        total += v",
                                "return count"), 6, "return total", cases(2, () -> {
                                    var xs = ints(r, 3 + r.nextInt(4), -9, 9);
                                    long count = xs.stream().filter(x -> x > 0).count();
                                    long total = xs.stream().filter(x -> x > 0).mapToLong(x -> x).sum();
                                    return new Case(py(xs), py(count), py(total));
                                }));
            }),
            new BugFamily("negated_condition", r -> {
                String n = pick(r, "n", "number", "value");
                return new Instance(pick(r, "is_even", "even", "divisible_by_two"), n, "Return True when " + n + " is even.",
                        List.of("return " + n + " % 2 == 0"), 0, "return " + n + " % 2 != 0", cases(2, () -> {
                            int x = r.nextInt(200) - 100;
                            return new Case(py(x), py(x % 2 == 0), py(x % 2 != 0));
                        }));
            }),
            new BugFamily("wrong_index", r -> {
                String v = pick(r, "items", "queue", "seq");
                return new Instance(pick(r, "last_item", "newest", "tail_value"), v, "Return the last element of " + v + ".",
                        List.of("return " + v + "[-1]"), 0, "return " + v + "[0]", cases(2, () -> {
                            var xs = ints(r, 2 + r.nextInt(4), 0, 99);
                            return new Case(py(xs), py(xs.getLast()), py(xs.getFirst()));
                        }));
            }),
            new BugFamily("bad_accumulator_init", r -> {
                String v = pick(r, "values", "factors", "numbers");
                return new Instance(pick(r, "product", "multiply_all", "prod"), v, "Return the product of " + v + ".",
                        List.of("result = 1", "for v in " + v + ":", "    result *= v", "return result"), 0, "result = 0", cases(2, () -> {
                            var xs = ints(r, 2 + r.nextInt(3), 1, 9);
                            return new Case(py(xs), py(xs.stream().mapToLong(x -> x).reduce(1, (p, q) -> p * q)), py(0));
                        }));
            }),
            new BugFamily("inclusive_bound", r -> {
                String v = pick(r, "values", "scores", "readings"), lim = pick(r, "limit", "threshold", "cutoff");
                return new Instance(pick(r, "count_above", "above", "over_limit"), v + ", " + lim,
                        "Return how many of the " + v + " are strictly greater than " + lim + ".",
                        List.of("return sum(1 for v in " + v + " if v > " + lim + ")"), 0, "return sum(1 for v in " + v + " if v >= " + lim + ")",
                        cases(2, () -> {
                            int l = r.nextInt(10);
                            var xs = ints(r, 3 + r.nextInt(3), 0, 9);
                            xs.set(0, l);
                            return new Case(py(xs) + ", " + l, py(xs.stream().filter(x -> x > l).count()), py(xs.stream().filter(x -> x >= l).count()));
                        }));
            }),
            new BugFamily("wrong_string_method", r -> {
                String t = pick(r, "text", "message", "s");
                return new Instance(pick(r, "shout", "yell", "loud"), t, "Return " + t + " in upper case followed by '!'.",
                        List.of("return " + t + ".upper() + '!'"), 0, "return " + t + ".lower() + '!'", cases(2, () -> {
                            String w = WORDS[r.nextInt(WORDS.length)];
                            return new Case(py(w), py(w.toUpperCase() + "!"), py(w.toLowerCase() + "!"));
                        }));
            }),
            new BugFamily("wrong_slice", r -> {
                String t = pick(r, "text", "word", "s");
                return new Instance(pick(r, "reverse_text", "backwards", "mirror"), t, "Return " + t + " reversed.",
                        List.of("return " + t + "[::-1]"), 0, "return " + t + "[::1]", cases(2, () -> {
                            String w = WORDS[r.nextInt(WORDS.length)];
                            return new Case(py(w), py(new StringBuilder(w).reverse().toString()), py(w));
                        }));
            }));
}
