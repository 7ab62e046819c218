package ai.openalice.rl.testkit;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Debian's headless Chromium ({@code chromium-headless-shell}, installed by {@code dev/stack install};
 * {@code -Dalice.chromium} names another): a page loaded as a person's browser would load it, scripts
 * run, then its DOM or a screenshot. {@code --virtual-time-budget} lets the page's scripts and fetches
 * settle before it is read.
 */
public final class HeadlessChromium {
    private HeadlessChromium() {}

    static Path binary() {
        Path p = Path.of(System.getProperty("alice.chromium", "/usr/bin/chromium-headless-shell"));
        if (!Files.isExecutable(p)) {
            throw new IllegalStateException("no headless Chromium at " + p + ": install it with dev/stack install (Debian's chromium-headless-shell)");
        }
        return p;
    }

    /** The page's DOM once its scripts ran for {@code budgetMs} of virtual time. */
    public static String dom(String url, int budgetMs) throws IOException, InterruptedException {
        return new String(run(List.of("--virtual-time-budget=" + budgetMs, "--dump-dom", url)), StandardCharsets.UTF_8);
    }

    /** A PNG of the page, {@code width}×{@code height}, written to {@code png}. */
    public static void screenshot(String url, Path png, int width, int height, int budgetMs) throws IOException, InterruptedException {
        Files.createDirectories(png.toAbsolutePath().getParent());
        run(List.of("--virtual-time-budget=" + budgetMs, "--window-size=" + width + "," + height, "--hide-scrollbars",
                "--screenshot=" + png.toAbsolutePath(), url));
        if (!Files.isRegularFile(png) || Files.size(png) == 0) {
            throw new IllegalStateException("Chromium wrote no screenshot of " + url + " to " + png);
        }
    }

    private static byte[] run(List<String> args) throws IOException, InterruptedException {
        var command = new ArrayList<String>();
        command.add(binary().toString());
        // no sandbox of its own: tests may run as root, which Chromium's sandbox refuses; the page is the test's own server
        command.addAll(List.of("--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--no-first-run"));
        command.addAll(args);
        Path err = Files.createTempFile("chromium", ".log");
        Process p = new ProcessBuilder(command).redirectError(err.toFile()).start();
        byte[] out = p.getInputStream().readAllBytes();
        if (!p.waitFor(2, TimeUnit.MINUTES)) {
            p.destroyForcibly();
            throw new IllegalStateException("Chromium did not finish in 2 minutes: " + command);
        }
        if (p.exitValue() != 0) {
            throw new IllegalStateException("Chromium exited with " + p.exitValue() + ": " + Files.readString(err));
        }
        Files.deleteIfExists(err);
        return out;
    }
}
