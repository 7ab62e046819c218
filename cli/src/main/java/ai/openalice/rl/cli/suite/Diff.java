package ai.openalice.rl.cli.suite;

/** Unified diffs for the generator: a one-line change in a file, and a new file. */
final class Diff {
    private Diff() {}

    /** The diff turning {@code before} into {@code after}, which differ in exactly one line; three lines of context. */
    static String replace(String path, String before, String after) {
        String[] a = before.split("\n", -1);
        String[] b = after.split("\n", -1);
        if (a.length != b.length) {
            throw new IllegalArgumentException("expected a one-line change");
        }
        int at = -1;
        for (int i = 0; i < a.length; i++) {
            if (!a[i].equals(b[i])) {
                if (at >= 0) {
                    throw new IllegalArgumentException("more than one line differs");
                }
                at = i;
            }
        }
        int lines = a.length - (before.endsWith("\n") ? 1 : 0); // the last split element is the empty tail
        int from = Math.max(0, at - 3);
        int to = Math.min(lines, at + 4);
        var d = new StringBuilder("diff --git a/" + path + " b/" + path + "\n--- a/" + path + "\n+++ b/" + path + "\n");
        d.append("@@ -").append(from + 1).append(",").append(to - from).append(" +").append(from + 1).append(",").append(to - from).append(" @@\n");
        for (int i = from; i < to; i++) {
            if (i == at) {
                d.append("-").append(a[i]).append("\n+").append(b[i]).append("\n");
            } else {
                d.append(" ").append(a[i]).append("\n");
            }
        }
        return d.toString();
    }

    static String newFile(String path, String content) {
        String[] lines = content.split("\n", -1);
        int n = lines.length - (content.endsWith("\n") ? 1 : 0);
        var d = new StringBuilder("diff --git a/" + path + " b/" + path + "\nnew file mode 100644\n--- /dev/null\n+++ b/" + path + "\n");
        d.append("@@ -0,0 +1,").append(n).append(" @@\n");
        for (int i = 0; i < n; i++) {
            d.append("+").append(lines[i]).append("\n");
        }
        return d.toString();
    }
}
