package ai.openalice.rl.model.template;

import ai.openalice.rl.model.template.Lexer.Segment;
import ai.openalice.rl.model.template.Lexer.Token;
import ai.openalice.rl.model.template.Lexer.TokenType;
import ai.openalice.rl.model.template.Node.Expr;
import ai.openalice.rl.model.template.Node.Stmt;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/** Statements from segments, expressions from a tag's tokens (Jinja's precedence: filters bind tighter than arithmetic). */
final class Parser {
    private static final Set<String> UNSUPPORTED = Set.of("include", "import", "from", "extends", "block", "call", "filter", "with",
        "autoescape", "do");
    private static final Set<String> NOT_AN_ARGUMENT = Set.of("and", "or", "not", "if", "else", "in", "is");

    private final List<Segment> segments;
    private int next;
    private List<Token> toks;
    private int at;
    private int line;

    private Parser(List<Segment> segments) {
        this.segments = segments;
    }

    static List<Stmt> parse(String source) {
        var p = new Parser(Lexer.segments(source));
        var body = p.block(Set.of());
        if (p.next < p.segments.size()) {
            Segment s = p.segments.get(p.next);
            throw TemplateException.at(s.line(), "unexpected {% " + s.content() + " %}");
        }
        return body;
    }

    /** Statements up to (not including) a statement whose keyword is in {@code ends}; the caller consumes it. */
    private List<Stmt> block(Set<String> ends) {
        var out = new ArrayList<Stmt>();
        while (next < segments.size()) {
            Segment s = segments.get(next);
            switch (s.kind()) {
                case TEXT -> {
                    out.add(new Node.Text(s.line(), s.content()));
                    next++;
                }
                case OUTPUT -> {
                    begin(s);
                    out.add(new Node.Output(s.line(), expression()));
                    expectEnd();
                    next++;
                }
                case STATEMENT -> {
                    begin(s);
                    String keyword = peek().text();
                    if (ends.contains(keyword)) {
                        return out;
                    }
                    next++;
                    out.add(statement(keyword));
                }
            }
        }
        if (!ends.isEmpty()) {
            throw new TemplateException("end of template: missing {% " + String.join(" or ", ends.stream().filter(e -> e.startsWith("end")).sorted().toList()) + " %}");
        }
        return out;
    }

    private void begin(Segment s) {
        toks = Lexer.tokens(s.content(), s.line());
        at = 0;
        line = s.line();
    }

    private Stmt statement(String keyword) {
        int l = line;
        at++;
        switch (keyword) {
            case "if" -> {
                var conds = new ArrayList<Expr>();
                var bodies = new ArrayList<List<Stmt>>();
                conds.add(expression());
                expectEnd();
                List<Stmt> otherwise = List.of();
                while (true) {
                    bodies.add(block(Set.of("elif", "else", "endif")));
                    String k = closeKeyword();
                    if (k.equals("elif")) {
                        conds.add(expression());
                        expectEnd();
                    } else if (k.equals("else")) {
                        expectEnd();
                        otherwise = block(Set.of("endif"));
                        closeKeyword();
                        expectEnd();
                        break;
                    } else {
                        expectEnd();
                        break;
                    }
                }
                return new Node.If(l, conds, bodies, otherwise);
            }
            case "for" -> {
                var targets = new ArrayList<String>();
                do {
                    targets.add(name());
                } while (accept(","));
                expect("in");
                Expr iterable = orExpr();
                Expr filter = accept("if") ? orExpr() : null;
                accept("recursive");
                expectEnd();
                List<Stmt> body = block(Set.of("else", "endfor"));
                List<Stmt> otherwise = List.of();
                if (closeKeyword().equals("else")) {
                    expectEnd();
                    otherwise = block(Set.of("endfor"));
                    closeKeyword();
                }
                expectEnd();
                return new Node.For(l, targets, iterable, filter, body, otherwise);
            }
            case "set" -> {
                var names = new ArrayList<String>();
                names.add(name());
                String attr = null;
                if (accept(".")) {
                    attr = name();
                }
                while (accept(",")) {
                    names.add(name());
                }
                if (!accept("=")) {
                    expectEnd();
                    var body = block(Set.of("endset"));
                    closeKeyword();
                    expectEnd();
                    return new Node.Set(l, names, attr, null, body);
                }
                Expr value = tupleOrExpression();
                expectEnd();
                return new Node.Set(l, names, attr, value, null);
            }
            case "macro" -> {
                String name = name();
                expect("(");
                var params = new ArrayList<String>();
                var defaults = new ArrayList<Expr>();
                while (!accept(")")) {
                    params.add(name());
                    defaults.add(accept("=") ? expression() : null);
                    if (!peek().is(")")) {
                        expect(",");
                    }
                }
                expectEnd();
                var body = block(Set.of("endmacro"));
                closeKeyword();
                expectEnd();
                return new Node.Macro(l, name, params, defaults, body);
            }
            case "break" -> {
                expectEnd();
                return new Node.Break(l);
            }
            case "continue" -> {
                expectEnd();
                return new Node.Continue(l);
            }
            case "generation" -> {
                // transformers' assistant-mask marker: renders its body unchanged
                expectEnd();
                var body = block(Set.of("endgeneration"));
                closeKeyword();
                expectEnd();
                return new Node.If(l, List.of(new Node.Literal(true)), List.of(body), List.of());
            }
            default -> throw TemplateException.at(l, UNSUPPORTED.contains(keyword) ? "{% " + keyword + " %} is not supported in chat templates here"
                    : "unknown tag {% " + keyword + " %}");
        }
    }

    /** Consumes the terminating statement found by {@link #block} and returns its keyword. */
    private String closeKeyword() {
        begin(segments.get(next));
        next++;
        return toks.get(at++).text();
    }

    // ---- expressions ----

    private Expr tupleOrExpression() {
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

    private Expr orExpr() {
        Expr e = andExpr();
        while (accept("or")) {
            e = new Node.Binary("or", e, andExpr());
        }
        return e;
    }

    private Expr andExpr() {
        Expr e = notExpr();
        while (accept("and")) {
            e = new Node.Binary("and", e, notExpr());
        }
        return e;
    }

    private Expr notExpr() {
        if (peek().is("not")) {
            at++;
            return new Node.Unary("not", notExpr());
        }
        return compare();
    }

    private Expr compare() {
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

    private Expr concat() {
        Expr e = sum();
        while (accept("~")) {
            e = new Node.Binary("~", e, sum());
        }
        return e;
    }

    private Expr sum() {
        Expr e = product();
        while (peek().is("+") || peek().is("-")) {
            String op = toks.get(at++).text();
            e = new Node.Binary(op, e, product());
        }
        return e;
    }

    private Expr product() {
        Expr e = power();
        while (peek().is("*") || peek().is("/") || peek().is("//") || peek().is("%")) {
            String op = toks.get(at++).text();
            e = new Node.Binary(op, e, power());
        }
        return e;
    }

    private Expr power() {
        Expr e = unary();
        while (accept("**")) {
            e = new Node.Binary("**", e, unary());
        }
        return e;
    }

    private Expr unary() {
        if (peek().is("-") || peek().is("+")) {
            String op = toks.get(at++).text();
            return new Node.Unary(op, unary());
        }
        return filtersAndTests(postfix(primary()));
    }

    private Expr filtersAndTests(Expr e) {
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

    private static boolean startsArgument(Token t) {
        return switch (t.type()) {
            case STRING, INT, FLOAT -> true;
            case NAME -> !NOT_AN_ARGUMENT.contains(t.text());
            default -> false;
        };
    }

    private Expr postfix(Expr e) {
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

    private Expr subscript(Expr target) {
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
    private void arguments(List<Expr> args, Map<String, Expr> kwargs) {
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

    private Expr primary() {
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

    private Token peek() {
        return toks.get(at);
    }

    private boolean accept(String s) {
        if (peek().is(s)) {
            at++;
            return true;
        }
        return false;
    }

    private void expect(String s) {
        if (!accept(s)) {
            throw TemplateException.at(line, "expected '" + s + "', found '" + peek().text() + "'");
        }
    }

    private void expectEnd() {
        if (peek().type() != TokenType.END) {
            throw TemplateException.at(line, "unexpected '" + peek().text() + "' (expected the end of the tag)");
        }
    }

    private String name() {
        return nameOf(toks.get(at++));
    }

    private String dotted() {
        String n = name();
        while (accept(".")) {
            n += "." + name();
        }
        return n;
    }

    private String nameOf(Token t) {
        if (t.type() != TokenType.NAME) {
            throw TemplateException.at(line, "expected a name, found '" + t.text() + "'");
        }
        return t.text();
    }
}
