package ai.openalice.rl.jinja;

import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;

/**
 * Splits a template into text, {@code {{ … }}} and {@code {% … %}} segments, applying Jinja's
 * whitespace control as HuggingFace configures it: {@code trim_blocks} (the first newline after a
 * block or comment tag goes), {@code lstrip_blocks} (spaces and tabs before a block or comment tag
 * on its own line go, unless the tag opens with {@code +}), {@code -} on either side of any tag
 * (all whitespace on that side goes), and no trailing newline kept at the end of the template.
 * Then tokenizes a tag's inside.
 */
final class Lexer {
    enum Kind { TEXT, OUTPUT, STATEMENT }

    record Segment(Kind kind, String content, int line) {}

    enum TokenType { NAME, STRING, INT, FLOAT, OP, END }

    record Token(TokenType type, String text, Object value) {
        boolean is(String s) {
            return (type == TokenType.OP || type == TokenType.NAME) && text.equals(s);
        }
    }

    private static final Pattern END_RAW = Pattern.compile("\\{%[-+]?\\s*endraw\\s*[-+]?%}");
    private static final String[] OPS = {"//", "**", "==", "!=", "<=", ">=", "(", ")", "[", "]", "{", "}", ",", ".", ":", "|", "~", "+", "-",
        "*", "/", "%", "<", ">", "="};

    private Lexer() {}

    static List<Segment> segments(String source) {
        String src = source.endsWith("\r\n") ? source.substring(0, source.length() - 2)
                : source.endsWith("\n") ? source.substring(0, source.length() - 1) : source;
        var out = new ArrayList<Segment>();
        int pos = 0;
        int pendingTrim = 0; // 1: strip all leading whitespace of the next text; 2: strip one leading newline
        while (pos <= src.length()) {
            int at = nextTag(src, pos);
            String raw = src.substring(pos, at < 0 ? src.length() : at);
            char kind = at < 0 ? 0 : src.charAt(at + 1);
            char open = at < 0 || at + 2 >= src.length() ? 0 : src.charAt(at + 2);
            String text = raw;
            if (kind != 0 && open == '-') {
                text = text.stripTrailing();
            } else if ((kind == '%' || kind == '#') && open != '+') {
                text = lstripLine(src, pos, text);
            }
            text = pendingTrim == 1 ? text.stripLeading() : pendingTrim == 2 ? dropNewline(text) : text;
            if (!text.isEmpty()) {
                out.add(new Segment(Kind.TEXT, text, line(src, pos)));
            }
            if (at < 0) {
                break;
            }
            int innerStart = at + 2 + (open == '-' || open == '+' ? 1 : 0);
            int end = kind == '#' ? src.indexOf("#}", innerStart) : closing(src, innerStart, kind == '{' ? '}' : '%');
            if (end < 0) {
                throw TemplateException.at(line(src, at), "unclosed tag '" + src.substring(at, Math.min(src.length(), at + 20)) + "…'");
            }
            char close = end > innerStart ? src.charAt(end - 1) : 0;
            String inner = src.substring(innerStart, close == '-' || close == '+' ? end - 1 : end).strip();
            pos = end + 2;
            pendingTrim = close == '-' ? 1 : (kind == '%' || kind == '#') && close != '+' ? 2 : 0;
            if (kind == '{') {
                out.add(new Segment(Kind.OUTPUT, inner, line(src, at)));
            } else if (kind == '%' && inner.equals("raw")) {
                var m = END_RAW.matcher(src);
                if (!m.find(pos)) {
                    throw TemplateException.at(line(src, at), "{% raw %} without {% endraw %}");
                }
                String body = pendingTrim == 2 ? dropNewline(src.substring(pos, m.start())) : src.substring(pos, m.start());
                out.add(new Segment(Kind.TEXT, body, line(src, pos)));
                pos = m.end();
                pendingTrim = 2;
            } else if (kind == '%') {
                out.add(new Segment(Kind.STATEMENT, inner, line(src, at)));
            }
        }
        return out;
    }

    private static int nextTag(String src, int from) {
        for (int i = src.indexOf('{', from); i >= 0 && i + 1 < src.length(); i = src.indexOf('{', i + 1)) {
            char c = src.charAt(i + 1);
            if (c == '{' || c == '%' || c == '#') {
                return i;
            }
        }
        return -1;
    }

    /** The index of the closing {@code }}}} or {@code %}}, skipping string literals inside the tag. */
    private static int closing(String src, int from, char first) {
        char quote = 0;
        for (int i = from; i + 1 < src.length(); i++) {
            char c = src.charAt(i);
            if (quote != 0) {
                if (c == '\\') {
                    i++;
                } else if (c == quote) {
                    quote = 0;
                }
            } else if (c == '\'' || c == '"') {
                quote = c;
            } else if (c == first && src.charAt(i + 1) == '}') {
                return i;
            }
        }
        return -1;
    }

    /** lstrip_blocks: the spaces and tabs between the line's start and a block tag go, if nothing else is there. */
    private static String lstripLine(String src, int textStart, String text) {
        int nl = text.lastIndexOf('\n');
        if (nl < 0 && textStart != 0 && src.charAt(textStart - 1) != '\n') {
            return text;
        }
        for (int i = nl + 1; i < text.length(); i++) {
            if (text.charAt(i) != ' ' && text.charAt(i) != '\t') {
                return text;
            }
        }
        return text.substring(0, nl + 1);
    }

    private static String dropNewline(String text) {
        return text.startsWith("\r\n") ? text.substring(2) : text.startsWith("\n") ? text.substring(1) : text;
    }

    private static int line(String src, int at) {
        int n = 1;
        for (int i = 0; i < at && i < src.length(); i++) {
            if (src.charAt(i) == '\n') {
                n++;
            }
        }
        return n;
    }

    /** The tokens of a tag's inside, ending with an END token. */
    static List<Token> tokens(String s, int line) {
        var out = new ArrayList<Token>();
        int i = 0;
        while (i < s.length()) {
            char c = s.charAt(i);
            if (Character.isWhitespace(c)) {
                i++;
            } else if (Character.isLetter(c) || c == '_') {
                int j = i;
                while (j < s.length() && (Character.isLetterOrDigit(s.charAt(j)) || s.charAt(j) == '_')) {
                    j++;
                }
                out.add(new Token(TokenType.NAME, s.substring(i, j), null));
                i = j;
            } else if (Character.isDigit(c)) {
                int j = i;
                while (j < s.length() && (Character.isDigit(s.charAt(j)) || s.charAt(j) == '_')) {
                    j++;
                }
                boolean fraction = j + 1 < s.length() && s.charAt(j) == '.' && Character.isDigit(s.charAt(j + 1));
                if (fraction) {
                    j++;
                    while (j < s.length() && Character.isDigit(s.charAt(j))) {
                        j++;
                    }
                }
                String num = s.substring(i, j).replace("_", "");
                out.add(fraction ? new Token(TokenType.FLOAT, num, Double.parseDouble(num)) : new Token(TokenType.INT, num, Long.parseLong(num)));
                i = j;
            } else if (c == '\'' || c == '"') {
                var sb = new StringBuilder();
                int j = i + 1;
                while (j < s.length() && s.charAt(j) != c) {
                    j = s.charAt(j) == '\\' ? escape(s, j, sb, line) : append(sb, s.charAt(j), j);
                }
                if (j >= s.length()) {
                    throw TemplateException.at(line, "unterminated string in '" + s + "'");
                }
                out.add(new Token(TokenType.STRING, s.substring(i, j + 1), sb.toString()));
                i = j + 1;
            } else {
                String op = null;
                for (String o : OPS) {
                    if (s.startsWith(o, i)) {
                        op = o;
                        break;
                    }
                }
                if (op == null) {
                    throw TemplateException.at(line, "unexpected character '" + c + "' in '" + s + "'");
                }
                out.add(new Token(TokenType.OP, op, null));
                i += op.length();
            }
        }
        out.add(new Token(TokenType.END, "end of tag", null));
        return out;
    }

    private static int append(StringBuilder sb, char c, int j) {
        sb.append(c);
        return j + 1;
    }

    /** A Python string escape at {@code j} (the backslash); returns the index after it. */
    private static int escape(String s, int j, StringBuilder sb, int line) {
        if (j + 1 >= s.length()) {
            throw TemplateException.at(line, "string ends in a backslash: '" + s + "'");
        }
        char e = s.charAt(j + 1);
        switch (e) {
            case 'n' -> sb.append('\n');
            case 't' -> sb.append('\t');
            case 'r' -> sb.append('\r');
            case '0' -> sb.append('\0');
            case 'b' -> sb.append('\b');
            case 'f' -> sb.append('\f');
            case '\\', '\'', '"' -> sb.append(e);
            case 'u', 'x' -> {
                int n = e == 'u' ? 4 : 2;
                sb.append((char) Integer.parseInt(s.substring(j + 2, j + 2 + n), 16));
                return j + 2 + n;
            }
            default -> sb.append('\\').append(e);
        }
        return j + 2;
    }
}
