package ai.openalice.rl.cli.train;

import java.io.PrintWriter;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.SortedMap;

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

    /**
     * An update of the final evaluation: the version evaluated, its tasks (of the held-out set) and
     * rollouts per task, episodes scored and failed of those planned, pass@1 over the tasks scored so far.
     */
    record EvalSnapshot(long version, int tasks, int heldOut, int k, int scored, int failed, Double pass1, int tasksScored, Duration elapsed,
            Duration remaining) {}

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
        print(terminal ? block(s) : List.of(line(s)));
    }

    void show(EvalSnapshot s) {
        print(terminal ? evalBlock(s) : List.of(evalLine(s)));
    }

    private void print(List<String> lines) {
        if (!terminal) {
            lines.forEach(out::println);
        } else {
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

    /** The final evaluation's line when not on a terminal. */
    static String evalLine(EvalSnapshot s) {
        return String.format(Locale.ROOT, "[final-eval] v%d | %s | pass@1 so far %s | %s", s.version(), episodes(s), evalPass1(s),
                time(s.elapsed(), s.remaining()));
    }

    /** The final evaluation's block on a terminal. */
    static List<String> evalBlock(EvalSnapshot s) {
        return List.of(String.format(Locale.ROOT, "[final-eval] policy v%d   %s", s.version(), time(s.elapsed(), s.remaining())),
                "  episodes          " + episodes(s),
                "  pass@1 so far     " + evalPass1(s));
    }

    private static String episodes(EvalSnapshot s) {
        return String.format(Locale.ROOT, "%d of %d episodes scored%s (%d of %d held-out tasks × %d)", s.scored(), s.tasks() * s.k(),
                s.failed() == 0 ? "" : ", " + s.failed() + " failed", s.tasks(), s.heldOut(), s.k());
    }

    private static String evalPass1(EvalSnapshot s) {
        return s.pass1() == null ? "-" : String.format(Locale.ROOT, "%.3f over %d task%s", s.pass1(), s.tasksScored(), s.tasksScored() == 1 ? "" : "s");
    }

    /**
     * The trainer's last batch by how many versions behind the policy its samples were drawn
     * ({@code lag → samples}), in words: "6 samples current", "4 samples current, 2 samples 1 version old".
     */
    static String staleness(SortedMap<Long, Long> samplesByLag) {
        if (samplesByLag.isEmpty()) {
            return "-";
        }
        var parts = new ArrayList<String>();
        for (Map.Entry<Long, Long> e : samplesByLag.entrySet()) {
            String n = e.getValue() + (e.getValue() == 1 ? " sample " : " samples ");
            parts.add(n + (e.getKey() == 0 ? "current" : e.getKey() + (e.getKey() == 1 ? " version old" : " versions old")));
        }
        return String.join(", ", parts);
    }

    private static String time(Snapshot s) {
        return time(s.elapsed(), s.remaining());
    }

    private static String time(Duration elapsed, Duration remaining) {
        return "elapsed " + clock(elapsed) + (remaining == null ? "" : ", remaining " + clock(remaining));
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
