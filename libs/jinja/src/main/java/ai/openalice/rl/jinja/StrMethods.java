package ai.openalice.rl.jinja;

import ai.openalice.rl.jinja.Values.PyCallable;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/** The methods of Python's {@code str} that chat templates call ({@code content.split('</think>')[0].rstrip('\n')} and the like). */
final class StrMethods {
    private StrMethods() {}

    static PyCallable bind(String s, String name) {
        return switch (name) {
            case "startswith" -> (a, kw) -> affix(s, a.get(0), true);
            case "endswith" -> (a, kw) -> affix(s, a.get(0), false);
            case "strip" -> (a, kw) -> strip(s, chars(a), true, true);
            case "lstrip" -> (a, kw) -> strip(s, chars(a), true, false);
            case "rstrip" -> (a, kw) -> strip(s, chars(a), false, true);
            case "split" -> (a, kw) -> split(s, a.isEmpty() ? null : (String) a.get(0), a.size() > 1 ? Values.integer(a.get(1)) : -1);
            case "rsplit" -> (a, kw) -> rsplit(s, (String) a.get(0), a.size() > 1 ? Values.integer(a.get(1)) : -1);
            case "splitlines" -> (a, kw) -> splitlines(s);
            case "upper" -> (a, kw) -> s.toUpperCase(Locale.ROOT);
            case "lower" -> (a, kw) -> s.toLowerCase(Locale.ROOT);
            case "title" -> (a, kw) -> title(s);
            case "capitalize" -> (a, kw) -> s.isEmpty() ? s : s.substring(0, 1).toUpperCase(Locale.ROOT) + s.substring(1).toLowerCase(Locale.ROOT);
            case "replace" -> (a, kw) -> replace(s, Values.str(a.get(0)), Values.str(a.get(1)), a.size() > 2 ? Values.integer(a.get(2)) : -1);
            case "find" -> (a, kw) -> (long) s.indexOf(Values.str(a.get(0)));
            case "rfind" -> (a, kw) -> (long) s.lastIndexOf(Values.str(a.get(0)));
            case "count" -> (a, kw) -> count(s, Values.str(a.get(0)));
            case "join" -> (a, kw) -> String.join(s, Values.iterate(a.get(0)).stream().map(Values::str).toList());
            case "isdigit" -> (a, kw) -> !s.isEmpty() && s.chars().allMatch(Character::isDigit);
            case "isspace" -> (a, kw) -> !s.isEmpty() && s.chars().allMatch(Character::isWhitespace);
            default -> null;
        };
    }

    private static boolean affix(String s, Object arg, boolean prefix) {
        for (Object o : arg instanceof List<?> l ? l : List.of(arg)) {
            String x = Values.str(o);
            if (prefix ? s.startsWith(x) : s.endsWith(x)) {
                return true;
            }
        }
        return false;
    }

    private static String chars(List<Object> a) {
        return a.isEmpty() || a.get(0) == null ? null : Values.str(a.get(0));
    }

    /** Python's strip: of {@code chars}, or of whitespace when null. */
    static String strip(String s, String chars, boolean left, boolean right) {
        int lo = 0;
        int hi = s.length();
        while (left && lo < hi && stripped(s.charAt(lo), chars)) {
            lo++;
        }
        while (right && hi > lo && stripped(s.charAt(hi - 1), chars)) {
            hi--;
        }
        return s.substring(lo, hi);
    }

    private static boolean stripped(char c, String chars) {
        return chars == null ? Character.isWhitespace(c) || Character.isSpaceChar(c) : chars.indexOf(c) >= 0;
    }

    /** Python's split: on runs of whitespace without a separator, else on each separator, empty parts kept. */
    static List<Object> split(String s, String sep, long max) {
        var out = new ArrayList<Object>();
        if (sep == null) {
            int i = 0;
            while (true) {
                while (i < s.length() && Character.isWhitespace(s.charAt(i))) {
                    i++;
                }
                if (i == s.length()) {
                    return out;
                }
                if (max >= 0 && out.size() == max) {
                    out.add(strip(s.substring(i), null, false, true));
                    return out;
                }
                int j = i;
                while (j < s.length() && !Character.isWhitespace(s.charAt(j))) {
                    j++;
                }
                out.add(s.substring(i, j));
                i = j;
            }
        }
        if (sep.isEmpty()) {
            throw new TemplateException("split(): empty separator");
        }
        int from = 0;
        for (int at = s.indexOf(sep); at >= 0 && (max < 0 || out.size() < max); at = s.indexOf(sep, from)) {
            out.add(s.substring(from, at));
            from = at + sep.length();
        }
        out.add(s.substring(from));
        return out;
    }

    private static List<Object> rsplit(String s, String sep, long max) {
        if (max < 0) {
            return split(s, sep, -1);
        }
        var out = new ArrayList<Object>();
        int to = s.length();
        for (int at = s.lastIndexOf(sep, to - sep.length()); at >= 0 && out.size() < max; at = s.lastIndexOf(sep, to - sep.length())) {
            out.add(0, s.substring(at + sep.length(), to));
            to = at;
        }
        out.add(0, s.substring(0, to));
        return out;
    }

    private static List<Object> splitlines(String s) {
        var out = new ArrayList<Object>();
        int from = 0;
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c == '\n' || c == '\r') {
                out.add(s.substring(from, i));
                if (c == '\r' && i + 1 < s.length() && s.charAt(i + 1) == '\n') {
                    i++;
                }
                from = i + 1;
            }
        }
        if (from < s.length()) {
            out.add(s.substring(from));
        }
        return out;
    }

    private static String replace(String s, String old, String with, long count) {
        if (count < 0) {
            return s.replace(old, with);
        }
        var sb = new StringBuilder();
        int from = 0;
        for (long n = 0; n < count; n++) {
            int at = s.indexOf(old, from);
            if (at < 0) {
                break;
            }
            sb.append(s, from, at).append(with);
            from = at + old.length();
        }
        return sb.append(s.substring(from)).toString();
    }

    private static long count(String s, String x) {
        if (x.isEmpty()) {
            return s.length() + 1;
        }
        long n = 0;
        for (int at = s.indexOf(x); at >= 0; at = s.indexOf(x, at + x.length())) {
            n++;
        }
        return n;
    }

    /** Python's {@code str.title} (and Jinja's {@code title} filter): a letter after a non-alphanumeric is upper case, the others lower. */
    static String title(String s) {
        var sb = new StringBuilder();
        boolean start = true;
        for (char c : s.toCharArray()) {
            sb.append(start ? Character.toUpperCase(c) : Character.toLowerCase(c));
            start = !Character.isLetterOrDigit(c);
        }
        return sb.toString();
    }
}
