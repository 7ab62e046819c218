package ai.openalice.rl.events;

import java.security.SecureRandom;
import java.util.HexFormat;
import java.util.regex.Pattern;

/** W3C Trace Context {@code traceparent} values: {@code 00-<trace-id>-<parent-id>-<flags>}. */
public final class Traceparent {
    private static final Pattern FORMAT = Pattern.compile("^00-[0-9a-f]{32}-[0-9a-f]{16}-[0-9a-f]{2}$");
    private static final SecureRandom RANDOM = new SecureRandom();
    private static final HexFormat HEX = HexFormat.of();

    private Traceparent() {}

    public static boolean isValid(String value) {
        return value != null && FORMAT.matcher(value).matches()
                && !value.substring(3, 35).equals("0".repeat(32)) && !value.substring(36, 52).equals("0".repeat(16));
    }

    /** A new trace with a sampled root span. */
    public static String newRoot() {
        return "00-" + randomHex(16) + "-" + randomHex(8) + "-01";
    }

    /** A new span in the trace of {@code parent}; a new root when the parent is absent or malformed. */
    public static String childOf(String parent) {
        if (!isValid(parent)) {
            return newRoot();
        }
        return "00-" + parent.substring(3, 35) + "-" + randomHex(8) + "-" + parent.substring(53, 55);
    }

    /** The 32-hex-digit trace id. */
    public static String traceId(String traceparent) {
        return traceparent.substring(3, 35);
    }

    private static String randomHex(int bytes) {
        byte[] b = new byte[bytes];
        do {
            RANDOM.nextBytes(b);
        } while (isZero(b));
        return HEX.formatHex(b);
    }

    private static boolean isZero(byte[] b) {
        for (byte x : b) {
            if (x != 0) return false;
        }
        return true;
    }
}
