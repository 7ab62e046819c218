package ai.openalice.rl.policy;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ai.openalice.rl.model.GptConfig;
import ai.openalice.rl.model.checkpoint.Checkpoint;
import ai.openalice.rl.model.djl.Gpt;
import ai.openalice.rl.model.tokenizer.ByteTokenizer;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Map;
import java.util.stream.IntStream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class PrefixCacheTest {
    static final GptConfig C = new GptConfig(new ByteTokenizer().vocabSize(), 64, 2, 2, 32);
    @TempDir
    static Path tmp;
    static Path checkpoint;

    @BeforeAll
    static void export() {
        checkpoint = tmp.resolve("v3");
        Checkpoint.save(checkpoint, C, "byte-v1", 3, 30, Gpt.initialise(C, 7).snapshot(), Map.of(), 0);
    }

    private static int[] concat(int[]... parts) {
        return Arrays.stream(parts).flatMapToInt(Arrays::stream).toArray();
    }

    @Test
    void theNextTurnComputesOnlyItsNewTokensAndAnswersAsFromScratch() {
        var t = new ByteTokenizer();
        int[] prompt = t.encode("def area(w, h):\n    ret"); // 23 tokens
        assertEquals(23, prompt.length);
        try (var cached = new OrtPolicy(checkpoint)) {
            var first = cached.complete(CompletionRequest.greedy(prompt, 12));
            assertEquals(Completion.FinishReason.LENGTH, first.finish());
            // The 12th token ended the generation unfed: the cache covers 23 + 11 positions.
            int[] next = concat(prompt, first.tokens(), t.encode("\nok\n")); // 23 + 12 + 4 = 39 tokens
            var second = cached.complete(CompletionRequest.greedy(next, 12));
            assertArrayEquals(new long[] {34, 23 + (39 - 34)}, cached.promptTokens(), "reused 34; computed 23, then 5");

            try (var fresh = new OrtPolicy(checkpoint)) {
                var expected = fresh.complete(CompletionRequest.greedy(next, 12));
                assertArrayEquals(new long[] {0, 39}, fresh.promptTokens());
                assertArrayEquals(expected.tokens(), second.tokens());
                for (int i = 0; i < expected.logprobs().length; i++) {
                    assertEquals(expected.logprobs()[i], second.logprobs()[i], 1e-4, "logprob of token " + i);
                }
            }
            // A group's next member with the same first prompt reuses all of it but the last token.
            cached.complete(CompletionRequest.greedy(prompt, 4));
            assertArrayEquals(new long[] {34 + 22, 28 + 1}, cached.promptTokens());
        }
    }

    /** A sequence of {@code n} positions, 2 heads of size 1, 1 layer: head 0 holds 0..n-1, head 1 100..100+n-1 (values negated). */
    private static KvSequence seq(int n) {
        var s = new KvSequence(1, 2);
        float[] k = new float[2 * n];
        for (int i = 0; i < n; i++) {
            k[i] = i;
            k[n + i] = 100 + i;
        }
        s.keys[0] = k;
        float[] v = k.clone();
        for (int i = 0; i < v.length; i++) {
            v[i] = -v[i];
        }
        s.values[0] = v;
        s.length = n;
        return s;
    }

    @Test
    void entriesArePrefixCutLeastRecentlyUsedOutAndDominatedOnesDropped() {
        var cache = new PrefixCache(5_000, 100); // room for 50 positions
        int[] a = IntStream.range(0, 20).toArray();
        int[] b = IntStream.range(1000, 1030).toArray();
        cache.put(a, new int[0], seq(20));
        cache.put(b, new int[0], seq(30));
        assertEquals(2, cache.size());
        assertEquals(5_000, cache.bytes());
        // a + 10 more tokens: a is now redundant and dropped; 30 + 30 positions pass the budget, so b
        // (least recently used) goes too.
        int[] c = IntStream.range(0, 30).toArray();
        cache.put(Arrays.copyOf(c, 25), Arrays.copyOfRange(c, 25, 30), seq(30));
        assertEquals(1, cache.size());
        assertEquals(3_000, cache.bytes());

        int[] prompt = concat(Arrays.copyOf(c, 20), new int[] {7, 7, 7, 7, 7});
        var hit = cache.longest(prompt).orElseThrow();
        assertEquals(20, hit.length());
        float[] expectedKeys = concat2(IntStream.range(0, 20), IntStream.range(100, 120));
        assertArrayEquals(expectedKeys, hit.seq().keys[0]);
        assertEquals(-119f, hit.seq().values[0][39]);
        assertEquals(20, hit.seq().length());

        // The whole prompt matches: all but its last token is reused, so there are logits to sample from.
        assertEquals(29, cache.longest(IntStream.range(0, 30).toArray()).orElseThrow().length());
        assertTrue(cache.longest(concat(Arrays.copyOf(c, PrefixCache.MIN_REUSE - 1), new int[] {-1, -1})).isEmpty(),
                "a common prefix under MIN_REUSE is computed again");
        var none = new PrefixCache(0, 100);
        none.put(a, new int[0], seq(20));
        assertEquals(0, none.size(), "budget 0: off");
    }

    private static float[] concat2(IntStream x, IntStream y) {
        int[] all = IntStream.concat(x, y).toArray();
        float[] f = new float[all.length];
        for (int i = 0; i < all.length; i++) {
            f[i] = all[i];
        }
        return f;
    }
}
