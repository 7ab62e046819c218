package ai.openalice.rl.cli.train;

import java.io.PrintWriter;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Locale;

/**
 * How a run's progress is shown. On a terminal one status block is redrawn in place (ANSI: back to
 * the block's first line, each line cleared and rewritten); otherwise — a log file, a pipe, CI — one
 * line per update, as grep and tail expect. A message printed between two updates ({@link #note})
 * leaves the block above it, and the next update draws a fresh one below.
 */
final class StatusView {
    /** One update: what the trainer, the dispatcher and the probes said. Null fields are shown as "-". */
    record Snapshot(String phase, long step, long version, double rolloutsPerSecond, Double reward, Double rExec, Double pass1, Double pass1Ci,
            long pass1Version, Double loss, String staleness, Duration elapsed, Duration remaining) {}

    private final PrintWriter out;
    private final boolean terminal;
    private int drawn; // lines of the block on screen, 0 when there is none to overwrite

    StatusView(PrintWriter out, boolean terminal) {
        this.out = out;
        this.terminal = terminal;
    }

    /** Whether standard output is a terminal: {@code ./alice-rl} passes {@code -Dalice.tty=true} when it is ({@code [ -t 1 ]}). */
    static boolean stdoutIsTerminal() {
        return Boolean.getBoolean("alice.tty");
    }

    void show(Snapshot s) {
        if (!terminal) {
            out.println(line(s));
        } else {
            var lines = block(s);
            var text = new StringBuilder();
            if (drawn > 0) {
                text.append("\033[").append(drawn).append('F'); // to the first line of the block drawn last
            }
            for (String l : lines) {
                text.append("\033[2K").append(l).append('\n');
            }
            out.print(text);
            drawn = lines.size();
        }
        out.flush();
    }

    /** The next update draws a new block below whatever was printed since the last one (a new phase of the run). */
    void newBlock() {
        drawn = 0;
    }

    /** A message of its own (a restart, a late answer): kept on screen, under the block so far. */
    void note(String message) {
        out.println(message);
        out.flush();
        newBlock();
    }

    /** The one-line form (not a terminal), as earlier releases printed it, with the time. */
    static String line(Snapshot s) {
        return String.format(Locale.ROOT, "[%s] step %d | v%d | %.2f rollouts/s | reward %s | r_exec %s | held-out pass@1 %s | loss %s | staleness %s | %s",
                s.phase(), s.step(), s.version(), s.rolloutsPerSecond(), num(s.reward()), num(s.rExec()), pass1(s), num(s.loss()),
                s.staleness() == null ? "-" : s.staleness(), time(s));
    }

    /** The block redrawn on a terminal. */
    static List<String> block(Snapshot s) {
        return List.of(
                String.format(Locale.ROOT, "[%s] step %d   policy v%d   %s", s.phase(), s.step(), s.version(), time(s)),
                String.format(Locale.ROOT, "  rollouts/s        %.2f (%.0f a minute)", s.rolloutsPerSecond(), s.rolloutsPerSecond() * 60),
                "  reward            " + num(s.reward()),
                "  r_exec            " + num(s.rExec()),
                "  held-out pass@1   " + pass1(s),
                "  loss              " + num(s.loss()),
                "  staleness         " + (s.staleness() == null ? "-" : s.staleness()));
    }

    private static String time(Snapshot s) {
        return "elapsed " + clock(s.elapsed()) + (s.remaining() == null ? "" : ", remaining " + clock(s.remaining()));
    }

    private static String pass1(Snapshot s) {
        return s.pass1() == null ? "-"
                : String.format(Locale.ROOT, "%.3f%s (v%d)", s.pass1(), s.pass1Ci() == null ? "" : String.format(Locale.ROOT, " ± %.3f", s.pass1Ci()),
                        s.pass1Version());
    }

    static String num(Double v) {
        return v == null ? "-" : String.format(Locale.ROOT, "%.3f", v);
    }

    /** h:mm:ss; a negative duration (the deadline just passed) is 0:00:00. */
    static String clock(Duration d) {
        long s = Math.max(0, d.toSeconds());
        return String.format(Locale.ROOT, "%d:%02d:%02d", s / 3600, s / 60 % 60, s % 60);
    }

    /**
     * What is left of a run: until {@code until} when it has one (--minutes), else, for a step goal
     * (--steps), the steps still to go at the pace so far; null when there is no goal or no pace yet.
     */
    static Duration remaining(Instant now, Instant until, long untilStep, long fromStep, long step, Duration elapsed) {
        Duration byTime = until == null ? null : Duration.between(now, until);
        Duration bySteps = null;
        if (untilStep > 0 && step > fromStep) {
            bySteps = Duration.ofMillis(Math.round(elapsed.toMillis() * (double) (untilStep - step) / (step - fromStep)));
        }
        if (byTime != null && bySteps != null) {
            return byTime.compareTo(bySteps) < 0 ? byTime : bySteps;
        }
        return byTime != null ? byTime : bySteps;
    }
}
