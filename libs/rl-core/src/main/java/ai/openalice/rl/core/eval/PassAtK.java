package ai.openalice.rl.core.eval;

/**
 * The unbiased pass@k estimator (Chen et al., 2021): with n samples of which c pass,
 * {@code pass@k = 1 − C(n−c, k) / C(n, k)}, computed as {@code 1 − Π_{i=n−c+1}^{n} (1 − k/i)} —
 * a product of c terms in (0, 1], stable for n in the thousands where the binomials overflow.
 */
public final class PassAtK {
    private PassAtK() {}

    public static double estimate(int n, int c, int k) {
        if (n < 1) {
            throw new IllegalArgumentException("n must be >= 1, got " + n);
        }
        if (c < 0 || c > n) {
            throw new IllegalArgumentException("c must be in [0, n=" + n + "], got " + c);
        }
        if (k < 1 || k > n) {
            throw new IllegalArgumentException("k must be in [1, n=" + n + "], got " + k);
        }
        if (n - c < k) {
            return 1.0;
        }
        double prod = 1.0;
        for (int i = n - c + 1; i <= n; i++) {
            prod *= 1.0 - (double) k / i;
        }
        return 1.0 - prod;
    }

    /** Mean pass@k over tasks, each given as {@code {n, c}}. */
    public static double mean(int[][] perTask, int k) {
        if (perTask.length == 0) {
            throw new IllegalArgumentException("no tasks");
        }
        double sum = 0;
        for (int[] t : perTask) {
            sum += estimate(t[0], t[1], k);
        }
        return sum / perTask.length;
    }
}
