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

    /** The last block drawn for {@code phase} ({@code [rl] step …} and the lines under it). */
    static List<String> lastBlock(String output, String phase) {
        String start = "\033[2K[" + phase + "] step ";
        int at = output.lastIndexOf(start);
        if (at < 0) {
            throw new AssertionError("no status block of phase " + phase + " drawn (was alice.tty set?)");
        }
        var lines = new ArrayList<String>();
        for (String l : output.substring(at).split("\n", -1)) {
            if (!l.startsWith("\033[2K") || lines.size() == 7) {
                break;
            }
            lines.add(l.substring("\033[2K".length()));
        }
        return lines;
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
