package ai.openalice.rl.bench;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Whether a mirror holds every file a commit names. A snapshot of a large repository can be brought
 * without its largest files (astropy's IERS tables): a workspace cannot be made of such a commit
 * ({@code git archive} fails on the missing blob), so the bench counts the instance apart.
 */
final class MirrorFiles {
    private MirrorFiles() {}

    /** Null when every blob of {@code commit}'s tree is in {@code mirror}; else the first missing file, said. */
    static String missing(Path mirror, String commit) {
        try {
            // ls-tree names each blob; cat-file --batch-check answers "<id> missing" for one the object store lacks
            String script = String.join("\n", "set -o pipefail", "tree=$(mktemp)", "trap 'rm -f \"$tree\"' EXIT",
                    "git -C \"$0\" ls-tree -r \"$1\" | awk -F'\\t' '{split($1, m, \" \"); if (m[2] == \"blob\") print m[3] \"\\t\" $2}' > \"$tree\" || exit 2",
                    "cut -f1 \"$tree\" | git -C \"$0\" cat-file --batch-check | paste - \"$tree\" | awk -F'\\t' '$1 ~ / missing$/ {print $2 \" \" $3}'");
            var p = new ProcessBuilder("bash", "-c", script, mirror.toString(), commit).redirectErrorStream(true).start();
            String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
            if (!p.waitFor(5, TimeUnit.MINUTES) || p.exitValue() != 0) {
                return "the mirror cannot list commit " + commit + ": " + out;
            }
            List<String> lines = out.lines().toList();
            if (lines.isEmpty()) {
                return null;
            }
            String file = lines.getFirst();
            int space = file.indexOf(' ');
            return "commit " + commit.substring(0, 12) + " names " + (space < 0 ? file : file.substring(space + 1) + " (blob " + file.substring(0, space) + ")")
                    + ", which the mirror lacks (a snapshot brought without its largest files)";
        } catch (IOException e) {
            return "the mirror cannot be read: " + e.getMessage();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return "interrupted while reading the mirror";
        }
    }
}
