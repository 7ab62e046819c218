package ai.openalice.rl.cli.train;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;

/**
 * What a starting service waits for, read from its log since it was started: a service whose
 * database is not there yet waits for it (Flyway's retries, "Connection error: … Retrying in N sec",
 * service-kit's alice-database.properties) rather than exit, and {@code alice-rl train} says so once
 * instead of seeming stuck.
 */
final class StartWaits {
    private static final String MARK = "Connection error: ";

    private StartWaits() {}

    /** The last database connection error in {@code log} after byte {@code from}, as a short sentence; null when there is none. */
    static String database(Path log, long from) {
        String text;
        try (var f = new RandomAccessFile(log.toFile(), "r")) {
            long start = Math.max(from, f.length() - 64 * 1024); // the tail: the last error is what the service waits on now
            byte[] b = new byte[(int) (f.length() - Math.max(0, start))];
            f.seek(Math.max(0, start));
            f.readFully(b);
            text = new String(b, StandardCharsets.UTF_8);
        } catch (IOException e) {
            return null;
        }
        int at = text.lastIndexOf(MARK);
        if (at < 0) {
            return null;
        }
        String rest = text.substring(at + MARK.length());
        int end = rest.indexOf(". "); // the first sentence (an address has dots too)
        int nl = rest.indexOf('\n');
        end = end < 0 ? nl : nl < 0 ? end : Math.min(end, nl);
        return end < 0 ? rest.strip() : rest.substring(0, end).strip();
    }
}
