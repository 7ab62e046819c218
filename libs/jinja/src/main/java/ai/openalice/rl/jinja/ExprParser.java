package ai.openalice.rl.jinja;

import ai.openalice.rl.jinja.Lexer.Token;
import ai.openalice.rl.jinja.Lexer.TokenType;
import ai.openalice.rl.jinja.Node.Expr;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * One tag's tokens, read in order: its expressions in Jinja's precedence (filters and tests bind
 * tighter than arithmetic), and the names, keywords and punctuation a statement reads between them.
 */
final class ExprParser {
    private static final Set<String> NOT_AN_ARGUMENT = Set.of("and", "or", "not", "if", "else", "in", "is");

    private final List<Token> toks;
    private int at;
    final int line;

    ExprParser(List<Token> toks, int line) {
        this.toks = toks;
        this.line = line;
    }

    Expr tupleOrExpression() {
        Expr first = expression();
        if (!peek().is(",")) {
            return first;
        }
        var items = new ArrayList<Expr>(List.of(first));
        while (accept(",") && !peek().type().equals(TokenType.END)) {
            items.add(expression());
        }
        return new Node.ListOf(items);
    }

    Expr expression() {
        Expr e = orExpr();
        if (accept("if")) {
            Expr cond = orExpr();
            Expr otherwise = accept("else") ? expression() : new Node.Literal(new Values.Undefined("conditional expression has no else"));
            return new Node.Conditional(cond, e, otherwise);
        }
        return e;
    }

    Expr orExpr() {
        Expr e = andExpr();
        while (accept("or")) {
            e = new Node.Binary("or", e, andExpr());
        }
        return e;
    }

    Expr andExpr() {
        Expr e = notExpr();
        while (accept("and")) {
            e = new Node.Binary("and", e, notExpr());
        }
        return e;
    }

    Expr notExpr() {
        if (peek().is("not")) {
            at++;
            return new Node.Unary("not", notExpr());
        }
        return compare();
    }

    Expr compare() {
        Expr e = concat();
        while (true) {
            Token t = peek();
            if (t.type() == TokenType.OP && Set.of("==", "!=", "<", "<=", ">", ">=").contains(t.text())) {
                at++;
                e = new Node.Binary(t.text(), e, concat());
            } else if (t.is("in")) {
                at++;
                e = new Node.Binary("in", e, concat());
            } else if (t.is("not") && toks.get(at + 1).is("in")) {
                at += 2;
                e = new Node.Binary("not in", e, concat());
            } else {
                return e;
            }
        }
    }

    Expr concat() {
        Expr e = sum();
        while (accept("~")) {
            e = new Node.Binary("~", e, sum());
        }
        return e;
    }

    Expr sum() {
        Expr e = product();
        while (peek().is("+") || peek().is("-")) {
            String op = toks.get(at++).text();
            e = new Node.Binary(op, e, product());
        }
        return e;
    }

    Expr product() {
        Expr e = power();
        while (peek().is("*") || peek().is("/") || peek().is("//") || peek().is("%")) {
            String op = toks.get(at++).text();
            e = new Node.Binary(op, e, power());
        }
        return e;
    }

    Expr power() {
        Expr e = unary();
        while (accept("**")) {
            e = new Node.Binary("**", e, unary());
        }
        return e;
    }

    Expr unary() {
        if (peek().is("-") || peek().is("+")) {
            String op = toks.get(at++).text();
            return new Node.Unary(op, unary());
        }
        return filtersAndTests(postfix(primary()));
    }

    Expr filtersAndTests(Expr e) {
        while (true) {
            if (accept("|")) {
                String name = dotted();
                var args = new ArrayList<Expr>();
                var kwargs = new LinkedHashMap<String, Expr>();
                if (accept("(")) {
                    arguments(args, kwargs);
                }
                e = new Node.Filter(e, name, args, kwargs);
            } else if (peek().is("is")) {
                at++;
                boolean negated = accept("not");
                String name = name();
                var args = new ArrayList<Expr>();
                if (accept("(")) {
                    arguments(args, new LinkedHashMap<>());
                } else if (startsArgument(peek())) {
                    args.add(postfix(primary()));
                }
                e = new Node.Test(e, name, args, negated);
            } else {
                return e;
            }
        }
    }

    static boolean startsArgument(Token t) {
        return switch (t.type()) {
            case STRING, INT, FLOAT -> true;
            case NAME -> !NOT_AN_ARGUMENT.contains(t.text());
            default -> false;
        };
    }

    Expr postfix(Expr e) {
        while (true) {
            if (accept(".")) {
                Token t = toks.get(at++);
                e = t.type() == TokenType.INT ? new Node.Item(e, new Node.Literal(t.value())) : new Node.Attr(e, nameOf(t));
            } else if (accept("[")) {
                e = subscript(e);
            } else if (accept("(")) {
                var args = new ArrayList<Expr>();
                var kwargs = new LinkedHashMap<String, Expr>();
                arguments(args, kwargs);
                e = new Node.Call(e, args, kwargs);
            } else {
                return e;
            }
        }
    }

    Expr subscript(Expr target) {
        Expr start = peek().is(":") ? null : expression();
        if (accept("]")) {
            return new Node.Item(target, start);
        }
        expect(":");
        Expr stop = peek().is(":") || peek().is("]") ? null : expression();
        Expr step = null;
        if (accept(":") && !peek().is("]")) {
            step = expression();
        }
        expect("]");
        return new Node.Slice(target, start, stop, step);
    }

    /** After '(': positional and keyword arguments up to ')'. */
    void arguments(List<Expr> args, Map<String, Expr> kwargs) {
        while (!accept(")")) {
            if (peek().type() == TokenType.NAME && toks.get(at + 1).is("=")) {
                String k = toks.get(at).text();
                at += 2;
                kwargs.put(k, expression());
            } else {
                args.add(expression());
            }
            if (!peek().is(")")) {
                expect(",");
            }
        }
    }

    Expr primary() {
        Token t = toks.get(at++);
        switch (t.type()) {
            case STRING -> {
                var sb = new StringBuilder((String) t.value());
                while (peek().type() == TokenType.STRING) {
                    sb.append((String) toks.get(at++).value());
                }
                return new Node.Literal(sb.toString());
            }
            case INT, FLOAT -> {
                return new Node.Literal(t.value());
            }
            case NAME -> {
                return switch (t.text()) {
                    case "true", "True" -> new Node.Literal(true);
                    case "false", "False" -> new Node.Literal(false);
                    case "none", "None" -> new Node.Literal(null);
                    default -> new Node.Name(t.text());
                };
            }
            default -> {
            }
        }
        if (t.is("(")) {
            if (accept(")")) {
                return new Node.ListOf(List.of());
            }
            Expr e = expression();
            if (peek().is(",")) {
                var items = new ArrayList<Expr>(List.of(e));
                while (accept(",") && !peek().is(")")) {
                    items.add(expression());
                }
                e = new Node.ListOf(items);
            }
            expect(")");
            return e;
        }
        if (t.is("[")) {
            var items = new ArrayList<Expr>();
            while (!accept("]")) {
                items.add(expression());
                if (!peek().is("]")) {
                    expect(",");
                }
            }
            return new Node.ListOf(items);
        }
        if (t.is("{")) {
            var keys = new ArrayList<Expr>();
            var values = new ArrayList<Expr>();
            while (!accept("}")) {
                keys.add(expression());
                expect(":");
                values.add(expression());
                if (!peek().is("}")) {
                    expect(",");
                }
            }
            return new Node.DictOf(keys, values);
        }
        throw TemplateException.at(line, "unexpected '" + t.text() + "' in an expression");
    }

    // ---- tokens ----

    Token peek() {
        return toks.get(at);
    }

    /** The next token, consumed. */
    Token next() {
        return toks.get(at++);
    }

    boolean accept(String s) {
        if (peek().is(s)) {
            at++;
            return true;
        }
        return false;
    }

    void expect(String s) {
        if (!accept(s)) {
            throw TemplateException.at(line, "expected '" + s + "', found '" + peek().text() + "'");
        }
    }

    void expectEnd() {
        if (peek().type() != TokenType.END) {
            throw TemplateException.at(line, "unexpected '" + peek().text() + "' (expected the end of the tag)");
        }
    }

    String name() {
        return nameOf(toks.get(at++));
    }

    String dotted() {
        String n = name();
        while (accept(".")) {
            n += "." + name();
        }
        return n;
    }

    String nameOf(Token t) {
        if (t.type() != TokenType.NAME) {
            throw TemplateException.at(line, "expected a name, found '" + t.text() + "'");
        }
        return t.text();
    }
}
