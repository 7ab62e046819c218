package ai.openalice.rl.harness;

import java.util.LinkedHashSet;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** The files a unified diff touches (old and new paths of every {@code diff --git} section, and plain ---/+++ headers). */
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
}
