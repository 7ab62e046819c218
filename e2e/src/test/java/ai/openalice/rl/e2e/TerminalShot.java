package ai.openalice.rl.e2e;

import ai.openalice.rl.testkit.HeadlessChromium;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * The status block {@code alice-rl train} last drew on its terminal, taken from what it wrote (the
 * ANSI redraws stripped, as a terminal would show them) and photographed as a terminal page by
 * headless Chromium: the README's picture of it.
 */
final class TerminalShot {
    private TerminalShot() {}

    /**
     * The last block drawn ({@code [phase] step …} and the lines under it) that shows a step's figures
     * (a restarted trainer has none until its first step: a minute of RL may show none), else the last one.
     */
    static List<String> lastBlock(String output) {
        String start = "\033[2K[";
        List<String> last = null;
        List<String> withFigures = null;
        for (int at = output.indexOf(start); at >= 0; at = output.indexOf(start, at + 1)) {
            var lines = new ArrayList<String>();
            for (String l : output.substring(at).split("\n", -1)) {
                if (!l.startsWith("\033[2K") || lines.size() == 7) {
                    break;
                }
                lines.add(l.substring("\033[2K".length()));
            }
            if (lines.size() < 7) {
                continue; // the final evaluation's three lines: the picture is of training
            }
            last = lines;
            if (lines.stream().noneMatch(l -> l.matches("\\s*loss\\s+-"))) {
                withFigures = lines;
            }
        }
        if (last == null) {
            throw new AssertionError("no status block drawn (was alice.tty set?)");
        }
        return withFigures != null ? withFigures : last;
    }

    static void screenshot(List<String> block, Path png) throws Exception {
        String text = String.join("\n", block).replace("&", "&amp;").replace("<", "&lt;");
        Path page = Files.createTempFile("status-block", ".html");
        Files.writeString(page, "<!doctype html><html><body style=\"margin:0;background:#1e1e1e\"><pre style=\"margin:0;padding:16px;"
                + "color:#d4d4d4;font:16px/1.4 'DejaVu Sans Mono',monospace\">$ ./alice-rl train --minutes 60\n" + text + "</pre></body></html>");
        HeadlessChromium.screenshot(page.toUri().toString(), png, 760, 230, 1000);
        Files.delete(page);
    }
}
