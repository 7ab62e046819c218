package ai.openalice.rl.cli.train;

import java.time.Duration;
import java.util.List;
import java.util.Locale;

/**
 * How much of the held-out set the run's last evaluation takes, and how much of a time limit
 * ({@code --minutes}) it is left: {@code --final-eval} names how many held-out tasks (all, none or
 * the first N of the drawn held-out set); with a time limit the evaluation is cut to the tasks that
 * fit in what is left at the pace seen so far, and RL stops early enough to leave it that time.
 * Pure arithmetic, so that it can be checked by hand.
 */
final class FinalEvaluation {
    /** Without a time limit the evaluation is still not waited on for ever: a stuck run ends. */
    static final Duration UNBOUNDED_WAIT = Duration.ofMinutes(20);
    /** The share of a time limit kept for the final evaluation before any pace is known. */
    static final double RESERVE_WITHOUT_PACE = 0.25;
    /** The most of a time limit the final evaluation may take from RL. */
    static final double MAX_RESERVE = 0.5;
    /** Margin on the estimate: the evaluation's rollouts share the runner with training. */
    static final double MARGIN = 1.25;
    /** And what it takes besides the episodes: the status poll that ends RL (every 5 s), the evaluation's start and its verdicts. */
    static final Duration OVERHEAD = Duration.ofSeconds(10);

    private FinalEvaluation() {}

    /**
     * The pace seen so far: wall seconds per scored episode across the runner's parallel episodes
     * (the last probe's, else the rate of training rollouts; null before either), and how long one
     * episode takes (the runner's mean; 0 when not known) — however many run side by side, an
     * evaluation lasts at least that.
     */
    record Pace(Double secondsPerEpisode, double episodeSeconds) {
        static final Pace UNKNOWN = new Pace(null, 0);

        boolean known() {
            return secondsPerEpisode != null && secondsPerEpisode > 0;
        }

        /** The estimated wall time of {@code episodes} episodes, with the margin and the overhead. */
        Duration of(int episodes) {
            return Duration.ofMillis(Math.round(Math.max(episodes * secondsPerEpisode, episodeSeconds) * MARGIN * 1000)).plus(OVERHEAD);
        }
    }

    /** What to evaluate: these tasks, k rollouts each; {@code cut} says why fewer than asked (null when none were cut). */
    record Plan(List<String> tasks, int k, String cut) {
        int episodes() {
            return tasks.size() * k;
        }
    }

    /**
     * {@code --final-eval}: "all" (null), "off" (0) or a number of held-out tasks; throws with a
     * message naming the option when it is none of those.
     */
    static Integer parse(String value) {
        String v = value.strip().toLowerCase(Locale.ROOT);
        if (v.equals("all")) {
            return null;
        }
        if (v.equals("off") || v.equals("none")) {
            return 0;
        }
        try {
            int n = Integer.parseInt(v);
            if (n >= 0) {
                return n;
            }
        } catch (NumberFormatException e) {
            // named below
        }
        throw new IllegalArgumentException("--final-eval: 'all', 'off' or a number of held-out tasks >= 0, not '" + value + "'");
    }

    /**
     * The tasks of the final evaluation: the first {@code asked} of {@code heldOut} (null: all), and,
     * with {@code left} of a time limit (null: none) and a known pace, no more than fit in it — at
     * least one task, so that the run ends with a measure.
     */
    static Plan plan(List<String> heldOut, int k, Integer asked, Duration left, Pace pace) {
        int n = asked == null ? heldOut.size() : Math.min(asked, heldOut.size());
        String cut = null;
        if (n > 0 && left != null && pace.known()) {
            int fit = n;
            while (fit > 1 && pace.of(fit * k).compareTo(left) > 0) {
                fit--;
            }
            if (fit < n) {
                cut = String.format(Locale.ROOT, "%d of %d held-out tasks: what fits in the %s left at about %.0f s an episode", fit, n,
                        StatusView.clock(left), pace.secondsPerEpisode());
                n = fit;
            }
        }
        return new Plan(List.copyOf(heldOut.subList(0, n)), k, cut);
    }

    /**
     * The time kept for the final evaluation's {@code episodes} at the end of a time limit of
     * {@code budget}: the estimate at the pace seen when it is known, else a quarter of the budget;
     * never more than half of it, none when there is nothing to evaluate.
     */
    static Duration reserve(int episodes, Pace pace, Duration budget) {
        if (episodes == 0) {
            return Duration.ZERO;
        }
        long budgetMs = budget.toMillis();
        long ms = pace.known() ? pace.of(episodes).toMillis() : Math.round(budgetMs * RESERVE_WITHOUT_PACE);
        return Duration.ofMillis(Math.min(ms, Math.round(budgetMs * MAX_RESERVE)));
    }
}
