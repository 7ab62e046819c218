package ai.openalice.rl.model.hf;

/**
 * Rotary position embeddings in the rotate-half layout the Llama family uses: a head vector's
 * first and second halves are the two coordinates of d/2 pairs, pair i rotated by
 * {@code position · inv[i]} with {@code inv[i] = θ^(−2i/d)}; Llama 3.1's scaling divides the low
 * frequencies by {@code factor} and blends the band between.
 */
public final class Rope {
    private Rope() {}

    /** The inverse frequencies of {@code headDim / 2} pairs, scaled as {@code scaling} says (null: not scaled). */
    public static double[] inverseFrequencies(int headDim, double theta, HfConfig.RopeScaling scaling) {
        double[] inv = new double[headDim / 2];
        for (int i = 0; i < inv.length; i++) {
            inv[i] = 1.0 / Math.pow(theta, 2.0 * i / headDim);
            if (scaling != null) {
                inv[i] = llama3(inv[i], scaling);
            }
        }
        return inv;
    }

    /**
     * Llama 3.1's rule for one frequency: wavelengths shorter than {@code original / high_freq_factor}
     * are kept, longer than {@code original / low_freq_factor} divided by {@code factor}, and in
     * between interpolated with {@code s = (original / wavelength − low) / (high − low)}:
     * {@code (1 − s) · f / factor + s · f}.
     */
    static double llama3(double freq, HfConfig.RopeScaling s) {
        double wavelength = 2 * Math.PI / freq;
        double highWavelength = s.originalMaxPositions() / s.highFreqFactor();
        double lowWavelength = s.originalMaxPositions() / s.lowFreqFactor();
        if (wavelength < highWavelength) {
            return freq;
        }
        if (wavelength > lowWavelength) {
            return freq / s.factor();
        }
        double smooth = (s.originalMaxPositions() / wavelength - s.lowFreqFactor()) / (s.highFreqFactor() - s.lowFreqFactor());
        return (1 - smooth) * freq / s.factor() + smooth * freq;
    }

    /** Rotates the head vector {@code x[offset, offset + 2·inv.length)} in place for {@code position}. */
    public static void rotate(double[] x, int offset, int position, double[] inv) {
        int half = inv.length;
        for (int i = 0; i < half; i++) {
            double angle = position * inv[i];
            double cos = Math.cos(angle);
            double sin = Math.sin(angle);
            double a = x[offset + i];
            double b = x[offset + half + i];
            x[offset + i] = a * cos - b * sin;
            x[offset + half + i] = b * cos + a * sin;
        }
    }
}
