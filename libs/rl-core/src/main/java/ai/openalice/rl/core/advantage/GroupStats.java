package ai.openalice.rl.core.advantage;

import ai.openalice.rl.core.Checks;

/** Sum, count and mean of the valid members of a group; validates the inputs once. */
record GroupStats(int valid, double sum) {

    static GroupStats of(double[] rewards, boolean[] valid) {
        Checks.sameLength("rewards", rewards.length, "valid", valid.length);
        int n = 0;
        double sum = 0;
        for (int i = 0; i < rewards.length; i++) {
            if (valid[i]) {
                Checks.finite("rewards[" + i + "]", rewards[i]);
                n++;
                sum += rewards[i];
            }
        }
        return new GroupStats(n, sum);
    }

    double mean() {
        return sum / valid;
    }
}
