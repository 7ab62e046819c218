package ai.openalice.rl.jinja;

import ai.openalice.rl.jinja.Lexer.Segment;
import ai.openalice.rl.jinja.Node.Expr;
import ai.openalice.rl.jinja.Node.Stmt;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/** Statements from segments; each tag's expressions through {@link ExprParser}. */
final class Parser extends ExprParser {
    private static final Set<String> UNSUPPORTED = Set.of("include", "import", "from", "extends", "block", "call", "filter", "with",
        "autoescape", "do");

    private final List<Segment> segments;
    private int next;

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
}
