package ai.openalice.rl.model.learner;

/**
 * Learning rate by optimizer step: linear warm-up over {@code warmup} steps to {@code base}, then
 * constant, or cosine decay to {@code base·minRatio} at {@code total} steps (and flat after).
 */
public record LrSchedule(double base, int warmup, boolean cosine, long total, double minRatio) {
    public LrSchedule {
        if (!(base > 0) || warmup < 0 || (cosine && total <= warmup) || minRatio < 0 || minRatio > 1) {
            throw new IllegalArgumentException("learning-rate schedule: base > 0, warm-up >= 0, total > warm-up for cosine, min ratio in [0, 1]; got "
                    + this.getClass().getSimpleName() + "[" + base + ", " + warmup + ", " + cosine + ", " + total + ", " + minRatio + "]");
        }
    }

    public static LrSchedule constant(double base, int warmup) {
        return new LrSchedule(base, warmup, false, Long.MAX_VALUE, 1);
    }

    /** The rate for optimizer step {@code step} (0-based). */
    public double at(long step) {
        if (step < warmup) {
            return base * (step + 1) / (warmup + 1);
        }
        if (!cosine) {
            return base;
        }
        double progress = Math.min(1.0, (double) (step - warmup) / (total - warmup));
        return base * (minRatio + (1 - minRatio) * 0.5 * (1 + Math.cos(Math.PI * progress)));
    }
}
