package ai.openalice.rl.tinker;

import java.util.Arrays;

/**
 * One sequence of a forward_backward: the model reads {@code inputTokens} and is scored, position
 * by position, on {@code targetTokens} (the next token of each input position, so both have the
 * same length). The policy-gradient losses also take the sampler's log-probability of each target
 * token and its advantage; {@code weights} masks positions (0: the prompt, a tool's output) and
 * scales the rest. Losses are sums over the weighted positions: any normalisation is the
 * caller's, folded into the advantages or the weights.
 */
public record Datum(int[] inputTokens, int[] targetTokens, float[] samplerLogprobs, float[] advantages, float[] weights) {
    public Datum {
        int n = inputTokens.length;
        if (n == 0) {
            throw new IllegalArgumentException("a datum needs at least one input token");
        }
        check("targetTokens", targetTokens, n);
        if (samplerLogprobs != null) {
            check("samplerLogprobs", samplerLogprobs.length, n);
        }
        if (advantages != null) {
            check("advantages", advantages.length, n);
        }
        if (weights != null) {
            check("weights", weights.length, n);
        }
    }

    /** A datum for cross_entropy (no sampler log-probabilities, no advantages). */
    public static Datum supervised(int[] inputTokens, int[] targetTokens, float[] weights) {
        return new Datum(inputTokens, targetTokens, null, null, weights);
    }

    /** The datum of a whole sequence: inputs are its tokens but the last, targets its tokens but the first. */
    public static Datum ofSequence(int[] tokens, float[] samplerLogprobs, float[] advantages, float[] weights) {
        if (tokens.length < 2) {
            throw new IllegalArgumentException("a sequence of " + tokens.length + " token(s) has nothing to predict");
        }
        return new Datum(Arrays.copyOf(tokens, tokens.length - 1), Arrays.copyOfRange(tokens, 1, tokens.length), samplerLogprobs, advantages, weights);
    }

    private static void check(String name, int[] a, int n) {
        check(name, a.length, n);
    }

    private static void check(String name, int length, int n) {
        if (length != n) {
            throw new IllegalArgumentException(name + " has " + length + " entries for " + n + " input tokens");
        }
    }
}
