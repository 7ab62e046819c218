package ai.openalice.rl.dispatcher.model;

/**
 * The curriculum's rule, for a task or a cohort: after an all-solved or all-failed group it sits
 * out {@code base·2^(streak−1)} scheduling rounds (at most {@code maxSkip}), where the streak
 * counts such groups in a row; a mixed group ends the streak and puts it back in rotation at once.
 */
public record Curriculum(int baseSkip, long maxSkip) {

    public Curriculum {
        if (baseSkip < 0 || maxSkip < 0) {
            throw new IllegalArgumentException("curriculum base-skip and max-skip must be >= 0, got " + baseSkip + " and " + maxSkip);
        }
    }

    /** Where a task (or cohort) stands: groups in a row that were uniform, and the first round it may be scheduled again. */
    public record Bench(int streak, long skipUntil) {}

    /** The bench after a group finished at {@code round}, from a streak of {@code streak}; {@code uniform}: all solved or all failed. */
    public Bench after(int streak, boolean uniform, long round) {
        if (!uniform) {
            return new Bench(0, 0);
        }
        int next = streak + 1;
        return new Bench(next, round + rounds(next));
    }

    /** Rounds sat out after {@code streak} uniform groups in a row: base·2^(streak−1), capped. */
    public long rounds(int streak) {
        long skip = (long) baseSkip << Math.min(streak - 1, 30);
        return Math.min(skip, maxSkip);
    }
}
