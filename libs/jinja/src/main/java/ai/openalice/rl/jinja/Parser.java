package ai.openalice.rl.jinja;

import ai.openalice.rl.jinja.Lexer.Segment;
import ai.openalice.rl.jinja.Node.Expr;
import ai.openalice.rl.jinja.Node.Stmt;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/** Statements from segments; each tag's tokens read by an {@link ExprParser}. */
final class Parser {
    private static final Set<String> UNSUPPORTED = Set.of("include", "import", "from", "extends", "block", "call", "filter", "with",
        "autoescape", "do");

    private final List<Segment> segments;
    private int next;
    /** The tag being read. */
    private ExprParser tag;

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
                    out.add(new Node.Output(s.line(), tag.expression()));
                    tag.expectEnd();
                    next++;
                }
                case STATEMENT -> {
                    begin(s);
                    String keyword = tag.peek().text();
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
        tag = new ExprParser(Lexer.tokens(s.content(), s.line()), s.line());
    }

    private Stmt statement(String keyword) {
        int l = tag.line;
        tag.next();
        return switch (keyword) {
            case "if" -> ifTag(l);
            case "for" -> forTag(l);
            case "set" -> setTag(l);
            case "macro" -> macroTag(l);
            case "break" -> {
                tag.expectEnd();
                yield new Node.Break(l);
            }
            case "continue" -> {
                tag.expectEnd();
                yield new Node.Continue(l);
            }
            // transformers' assistant-mask marker: renders its body unchanged
            case "generation" -> new Node.If(l, List.of(new Node.Literal(true)), List.of(body("endgeneration")), List.of());
            default -> throw TemplateException.at(l, UNSUPPORTED.contains(keyword) ? "{% " + keyword + " %} is not supported in chat templates here"
                    : "unknown tag {% " + keyword + " %}");
        };
    }

    /** {@code if}, any {@code elif}s, an {@code else}, to {@code endif}. */
    private Stmt ifTag(int l) {
        var conds = new ArrayList<Expr>();
        var bodies = new ArrayList<List<Stmt>>();
        conds.add(tag.expression());
        tag.expectEnd();
        List<Stmt> otherwise = List.of();
        while (true) {
            bodies.add(block(Set.of("elif", "else", "endif")));
            String k = closeKeyword();
            if (k.equals("elif")) {
                conds.add(tag.expression());
                tag.expectEnd();
            } else {
                if (k.equals("else")) {
                    otherwise = body("endif");
                } else {
                    tag.expectEnd();
                }
                return new Node.If(l, conds, bodies, otherwise);
            }
        }
    }

    /** {@code for a, b in iterable if filter [recursive]}, its body, an {@code else}, to {@code endfor}. */
    private Stmt forTag(int l) {
        var targets = new ArrayList<String>();
        do {
            targets.add(tag.name());
        } while (tag.accept(","));
        tag.expect("in");
        Expr iterable = tag.orExpr();
        Expr filter = tag.accept("if") ? tag.orExpr() : null;
        tag.accept("recursive");
        tag.expectEnd();
        List<Stmt> body = block(Set.of("else", "endfor"));
        List<Stmt> otherwise = List.of();
        if (closeKeyword().equals("else")) {
            otherwise = body("endfor");
        } else {
            tag.expectEnd();
        }
        return new Node.For(l, targets, iterable, filter, body, otherwise);
    }

    /** {@code set name = value}, {@code set a, b = value}, {@code set ns.attr = value}, or the block form to {@code endset}. */
    private Stmt setTag(int l) {
        var names = new ArrayList<String>();
        names.add(tag.name());
        String attr = null;
        if (tag.accept(".")) {
            attr = tag.name();
        }
        while (tag.accept(",")) {
            names.add(tag.name());
        }
        if (!tag.accept("=")) {
            return new Node.Set(l, names, attr, null, body("endset"));
        }
        Expr value = tag.tupleOrExpression();
        tag.expectEnd();
        return new Node.Set(l, names, attr, value, null);
    }

    /** {@code macro name(param, param=default)}, its body, to {@code endmacro}. */
    private Stmt macroTag(int l) {
        String name = tag.name();
        tag.expect("(");
        var params = new ArrayList<String>();
        var defaults = new ArrayList<Expr>();
        while (!tag.accept(")")) {
            params.add(tag.name());
            defaults.add(tag.accept("=") ? tag.expression() : null);
            if (!tag.peek().is(")")) {
                tag.expect(",");
            }
        }
        return new Node.Macro(l, name, params, defaults, body("endmacro"));
    }

    /** The end of the opening tag, the statements to {@code end}, and the closing tag. */
    private List<Stmt> body(String end) {
        tag.expectEnd();
        var body = block(Set.of(end));
        closeKeyword();
        tag.expectEnd();
        return body;
    }

    /** Consumes the terminating statement found by {@link #block} and returns its keyword. */
    private String closeKeyword() {
        begin(segments.get(next));
        next++;
        return tag.next().text();
    }
}
