package ai.openalice.rl.inference.rest;

import ai.openalice.rl.model.tokenizer.Tokenizer;
import ai.openalice.rl.policy.Completion;
import java.util.Arrays;
import java.util.List;

/**
 * One sample's text and tokens released to a stream as they become final. A token is held back
 * while the text it ends could still change: half of a character (a byte-level tokenizer splits
 * UTF-8 sequences; the decoder shows U+FFFD until the rest comes), the start of a stop string (the
 * completion is cut before a stop string, so text that may begin one is not yet the answer's), or
 * — for a chat that offered tools — the start of a {@code <tool_call>} (the calls are sent as tool
 * call deltas, not as content: each as soon as its {@code </tool_call>} is sampled, see
 * {@link #closedCalls}). The end token is never text. What is released is always a prefix
 * of the finished completion, so the deltas concatenate to it: {@link #finish} sends the rest.
 *
 * <p>Each step decodes the tokens so far: quadratic in the completion's length, and a few
 * microseconds a token at the lengths of an agent's turn.
 */
final class StreamText {
    private static final String CALL = "<tool_call>";
    private static final String CALL_END = "</tool_call>";

    /** What to send now: the tokens released and the text they add (either may be empty). */
    record Delta(int[] tokens, double[] logprobs, String text) {
        boolean isEmpty() {
            return tokens.length == 0 && text.isEmpty();
        }
    }

    private final Tokenizer tokenizer;
    private final List<String> stop;
    private final boolean toolsOffered;
    private final int[] ends;
    private int releasedTokens;
    private int releasedChars;
    private boolean inCall;
    /** The text decoded so far once a call has begun (the calls are read from it). */
    private String decoded = "";

    StreamText(Tokenizer tokenizer, List<String> stop, boolean toolsOffered) {
        this.tokenizer = tokenizer;
        this.stop = stop;
        this.toolsOffered = toolsOffered;
        this.ends = tokenizer.endTokens();
    }

    /** The tokens sampled so far (with their log-probs): what can be released of them now. */
    Delta next(int[] tokens, double[] logprobs) {
        int n = tokens.length;
        while (n > 0 && isEnd(tokens[n - 1])) {
            n--;
        }
        if (n <= releasedTokens) {
            return empty();
        }
        String text = tokenizer.decode(Arrays.copyOf(tokens, n));
        if (inCall) {
            decoded = text;
            return empty();
        }
        if (text.endsWith("\uFFFD") || mayStartStop(text)) {
            return empty();
        }
        int chars = text.length();
        if (toolsOffered) {
            int call = text.indexOf(CALL);
            if (call >= 0) {
                inCall = true; // the rest is calls (or, if they do not parse, text sent at the end)
                decoded = text;
                return empty();
            }
            chars = Math.min(chars, text.length() - heldSuffix(text, CALL));
            while (chars > releasedChars && Character.isWhitespace(text.charAt(chars - 1))) {
                chars--; // whitespace before a call is not content
            }
            if (chars < text.length()) {
                return empty(); // release whole tokens only: the text held back belongs to the last one
            }
        }
        var d = new Delta(Arrays.copyOfRange(tokens, releasedTokens, n), Arrays.copyOfRange(logprobs, releasedTokens, n),
                text.substring(Math.min(releasedChars, text.length())));
        releasedTokens = n;
        releasedChars = text.length();
        return d;
    }

    /** The rest of the finished completion: its tokens (the end token among them) and its text after what was released. */
    Delta finish(Completion c, String text) {
        int[] t = c.tokens();
        int from = Math.min(releasedTokens, t.length);
        var d = new Delta(Arrays.copyOfRange(t, from, t.length), Arrays.copyOfRange(c.logprobs(), from, t.length),
                text == null || releasedChars >= text.length() ? "" : text.substring(releasedChars));
        releasedTokens = t.length;
        releasedChars = text == null ? releasedChars : Math.max(releasedChars, text.length());
        return d;
    }

    /**
     * The text sampled so far up to the end of its last closed call ({@code </tool_call>}): the calls
     * in it are final and may be sent; null while no call has closed.
     */
    String closedCalls() {
        int end = decoded.lastIndexOf(CALL_END);
        return end < 0 ? null : decoded.substring(0, end + CALL_END.length());
    }

    /** Text released so far, in characters. */
    int releasedChars() {
        return releasedChars;
    }

    private boolean mayStartStop(String text) {
        for (String s : stop) {
            if (!s.isEmpty() && heldSuffix(text, s) > 0) {
                return true;
            }
        }
        return false;
    }

    /** The length of the longest suffix of {@code text} that is a proper or whole prefix of {@code marker}. */
    private static int heldSuffix(String text, String marker) {
        for (int k = Math.min(marker.length(), text.length()); k > 0; k--) {
            if (text.regionMatches(text.length() - k, marker, 0, k)) {
                return k;
            }
        }
        return 0;
    }

    private boolean isEnd(int token) {
        for (int e : ends) {
            if (e == token) {
                return true;
            }
        }
        return false;
    }

    private Delta empty() {
        return new Delta(new int[0], new double[0], "");
    }
}
