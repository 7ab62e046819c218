package ai.openalice.rl.core.advantage;

import java.util.Arrays;

/**
 * Advantages of the members of one group. Masked members have advantage 0. A group with fewer
 * than two valid members has no baseline: every advantage is 0 and {@code note} says so.
 */
public record GroupAdvantages(double[] advantages, int validCount, boolean degenerate, String note) {

    public GroupAdvantages {
        advantages = advantages.clone();
    }

    @Override
    public double[] advantages() {
        return advantages.clone();
    }

    public double advantage(int i) {
        return advantages[i];
    }

    public int size() {
        return advantages.length;
    }

    static GroupAdvantages degenerate(int size, int valid) {
        return new GroupAdvantages(new double[size], valid, true,
                "group has " + valid + " valid member(s); at least 2 are needed for a baseline, all advantages are 0");
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof GroupAdvantages g && Arrays.equals(advantages, g.advantages) && validCount == g.validCount
                && degenerate == g.degenerate && note.equals(g.note);
    }

    @Override
    public int hashCode() {
        return Arrays.hashCode(advantages) * 31 + validCount;
    }

    @Override
    public String toString() {
        return "GroupAdvantages" + Arrays.toString(advantages) + (degenerate ? " (" + note + ")" : "");
    }
}
