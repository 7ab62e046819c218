package ai.openalice.rl.harness;

import java.util.LinkedHashSet;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * What a unified diff touches: its files (old and new paths of every {@code diff --git} section, and
 * plain ---/+++ headers) and its changed lines.
 */
public final class PatchPaths {
    private static final Pattern GIT_HEADER = Pattern.compile("^diff --git a/(.+?) b/(.+)$", Pattern.MULTILINE);
    private static final Pattern FILE_HEADER = Pattern.compile("^(?:---|\\+\\+\\+) (?:[ab]/)?([^\\t\\n]+)", Pattern.MULTILINE);

    private PatchPaths() {}

    public static Set<String> of(String patch) {
        var paths = new LinkedHashSet<String>();
        if (patch == null) {
            return paths;
        }
        Matcher m = GIT_HEADER.matcher(patch);
        while (m.find()) {
            paths.add(m.group(1));
            paths.add(m.group(2));
        }
        Matcher f = FILE_HEADER.matcher(patch);
        while (f.find()) {
            String p = f.group(1).strip();
            if (!p.equals("/dev/null")) {
                paths.add(p);
            }
        }
        return paths;
    }

    /** The lines a diff adds or removes (a {@code +} or {@code -} line that is not a ---/+++ file header). */
    public static int changedLines(String patch) {
        if (patch == null) {
            return 0;
        }
        int changed = 0;
        for (String line : patch.split("\n")) {
            if (isAdded(line) || isRemoved(line)) {
                changed++;
            }
        }
        return changed;
    }

    public static boolean isAdded(String line) {
        return line.startsWith("+") && !line.startsWith("+++");
    }

    public static boolean isRemoved(String line) {
        return line.startsWith("-") && !line.startsWith("---");
    }
}
