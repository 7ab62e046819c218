package ai.openalice.rl.sandbox;

/** POSIX shell quoting for arguments built into command lines. */
public final class Shell {
    private Shell() {}

    /** {@code s} as one single-quoted shell word. */
    public static String quote(String s) {
        return "'" + s.replace("'", "'\\''") + "'";
    }
}
