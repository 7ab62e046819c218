package ai.openalice.rl.core.loss;

import java.util.Arrays;

/** Spreads sequence- or turn-level advantages over the tokens they apply to. */
public final class AdvantageBroadcast {
    private AdvantageBroadcast() {}

    /** Every token of sequence s gets {@code seqAdvantages[s]}; {@code offsets} as in {@link TokenBatch}. */
    public static double[] perSequence(double[] seqAdvantages, int[] offsets) {
        if (seqAdvantages.length != offsets.length - 1) {
            throw new IllegalArgumentException(seqAdvantages.length + " advantages for " + (offsets.length - 1) + " sequences");
        }
        double[] out = new double[offsets[offsets.length - 1]];
        for (int s = 0; s < seqAdvantages.length; s++) {
            Arrays.fill(out, offsets[s], offsets[s + 1], seqAdvantages[s]);
        }
        return out;
    }

    /**
     * Turn-level: turn t of a sequence covers {@code turnTokens[t]} consecutive tokens (its
     * completion), and each gets {@code turnAdvantages[t]}.
     */
    public static double[] perTurn(double[] turnAdvantages, int[] turnTokens) {
        if (turnAdvantages.length != turnTokens.length) {
            throw new IllegalArgumentException(turnAdvantages.length + " turn advantages for " + turnTokens.length + " turns");
        }
        int total = 0;
        for (int c : turnTokens) {
            if (c < 0) {
                throw new IllegalArgumentException("negative token count " + c);
            }
            total += c;
        }
        double[] out = new double[total];
        int at = 0;
        for (int t = 0; t < turnTokens.length; t++) {
            Arrays.fill(out, at, at + turnTokens[t], turnAdvantages[t]);
            at += turnTokens[t];
        }
        return out;
    }
}
