package ai.openalice.rl.jinja;

import java.time.LocalDateTime;
import java.time.format.TextStyle;
import java.util.Locale;

/** Python's {@code strftime} codes that date lines in chat templates use. */
final class Strftime {
    private Strftime() {}

    static String format(String pattern, LocalDateTime t) {
        var sb = new StringBuilder();
        for (int i = 0; i < pattern.length(); i++) {
            char c = pattern.charAt(i);
            if (c != '%' || i + 1 == pattern.length()) {
                sb.append(c);
                continue;
            }
            char code = pattern.charAt(++i);
            sb.append(switch (code) {
                case 'd' -> "%02d".formatted(t.getDayOfMonth());
                case 'm' -> "%02d".formatted(t.getMonthValue());
                case 'Y' -> String.valueOf(t.getYear());
                case 'y' -> "%02d".formatted(t.getYear() % 100);
                case 'b' -> t.getMonth().getDisplayName(TextStyle.SHORT, Locale.ENGLISH);
                case 'B' -> t.getMonth().getDisplayName(TextStyle.FULL, Locale.ENGLISH);
                case 'a' -> t.getDayOfWeek().getDisplayName(TextStyle.SHORT, Locale.ENGLISH);
                case 'A' -> t.getDayOfWeek().getDisplayName(TextStyle.FULL, Locale.ENGLISH);
                case 'H' -> "%02d".formatted(t.getHour());
                case 'M' -> "%02d".formatted(t.getMinute());
                case 'S' -> "%02d".formatted(t.getSecond());
                case 'j' -> "%03d".formatted(t.getDayOfYear());
                case '%' -> "%";
                default -> throw new TemplateException("strftime_now: unsupported code %" + code);
            });
        }
        return sb.toString();
    }
}
