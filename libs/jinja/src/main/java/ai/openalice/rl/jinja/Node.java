package ai.openalice.rl.jinja;

import java.util.List;
import java.util.Map;

/** The parsed template: statements and expressions. */
final class Node {
    private Node() {}

    sealed interface Expr {}

    record Literal(Object value) implements Expr {}

    record Name(String name) implements Expr {}

    record Attr(Expr target, String name) implements Expr {}

    record Item(Expr target, Expr key) implements Expr {}

    record Slice(Expr target, Expr start, Expr stop, Expr step) implements Expr {}

    record Call(Expr fn, List<Expr> args, Map<String, Expr> kwargs) implements Expr {}

    record Filter(Expr target, String name, List<Expr> args, Map<String, Expr> kwargs) implements Expr {}

    record Test(Expr target, String name, List<Expr> args, boolean negated) implements Expr {}

    record Binary(String op, Expr left, Expr right) implements Expr {}

    record Unary(String op, Expr operand) implements Expr {}

    record Conditional(Expr condition, Expr then, Expr otherwise) implements Expr {}

    record ListOf(List<Expr> items) implements Expr {}

    record DictOf(List<Expr> keys, List<Expr> values) implements Expr {}

    sealed interface Stmt {
        int line();
    }

    record Text(int line, String text) implements Stmt {}

    record Output(int line, Expr expr) implements Stmt {}

    record If(int line, List<Expr> conditions, List<List<Stmt>> bodies, List<Stmt> otherwise) implements Stmt {}

    record For(int line, List<String> targets, Expr iterable, Expr filter, List<Stmt> body, List<Stmt> otherwise) implements Stmt {}

    /** {@code set name = value}, {@code set a, b = value}, {@code set ns.attr = value}, or a block set ({@code body} non-null). */
    record Set(int line, List<String> names, String attr, Expr value, List<Stmt> body) implements Stmt {}

    record Macro(int line, String name, List<String> params, List<Expr> defaults, List<Stmt> body) implements Stmt {}

    record Break(int line) implements Stmt {}

    record Continue(int line) implements Stmt {}
}
