package ai.openalice.rl.policy;

import java.util.Arrays;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The KV caches of finished generations, kept so that the next prompt that starts with the same
 * tokens skips them. An agent's next turn is its last prompt, the completion and the tool's
 * answer, so all but the new tail is already computed; a GRPO group's members share their first
 * prompt. Entries are evicted least recently used first once their caches pass {@code budgetBytes};
 * an entry whose tokens are a prefix of a newer one's is dropped as redundant. The caches belong
 * to one set of weights: each {@link OrtDecoder} (one checkpoint) has its own.
 */
public final class PrefixCache {
    /** Shorter common prefixes are prefilled again: copying them would save next to nothing. */
    static final int MIN_REUSE = 16;

    private record Entry(int[] tokens, KvSequence seq, long bytes) {}

    /** What a prompt can start from: a private copy of a cache covering the prompt's first {@code length} tokens. */
    record Hit(KvSequence seq, int length) {}

    private final long budgetBytes;
    private final long bytesPerToken;
    private final LinkedHashMap<Long, Entry> entries = new LinkedHashMap<>(16, 0.75f, true);
    private long bytes;
    private long nextId;
    private final AtomicLong reused = new AtomicLong();
    private final AtomicLong computed = new AtomicLong();

    /** {@code bytesPerToken}: the cache of one token, all layers, keys and values. */
    PrefixCache(long budgetBytes, long bytesPerToken) {
        this.budgetBytes = budgetBytes;
        this.bytesPerToken = bytesPerToken;
    }

    /**
     * The entry sharing the longest prefix with {@code prompt}, copied and cut to that prefix — at
     * most {@code prompt.length - 1} tokens, so at least one is left to compute the next-token
     * logits from; empty below {@link #MIN_REUSE} tokens.
     */
    synchronized Optional<Hit> longest(int[] prompt) {
        Long best = null;
        int bestLength = 0;
        for (Map.Entry<Long, Entry> e : entries.entrySet()) {
            int n = Math.min(common(e.getValue().tokens(), prompt), prompt.length - 1);
            if (n > bestLength) {
                best = e.getKey();
                bestLength = n;
            }
        }
        if (best == null || bestLength < MIN_REUSE) {
            return Optional.empty();
        }
        Entry e = entries.get(best); // access order: now the most recently used
        return Optional.of(new Hit(e.seq().prefix(bestLength), bestLength));
    }

    /**
     * Keeps {@code seq}'s cache for the tokens it covers: the prompt, then the generated tokens fed
     * back (all but an unfed last one; a completion cut at a stop string covers fewer).
     */
    synchronized void put(int[] prompt, int[] generated, KvSequence seq) {
        if (budgetBytes <= 0 || seq == null) {
            return;
        }
        int n = Math.min(seq.length(), prompt.length + generated.length);
        if (n < MIN_REUSE) {
            return;
        }
        int[] tokens = Arrays.copyOf(prompt, n);
        System.arraycopy(generated, 0, tokens, prompt.length, Math.max(0, n - prompt.length));
        long size = n * bytesPerToken;
        if (size > budgetBytes) {
            return;
        }
        for (Iterator<Entry> it = entries.values().iterator(); it.hasNext(); ) {
            Entry e = it.next();
            if (e.tokens().length <= n && common(e.tokens(), tokens) == e.tokens().length) {
                it.remove();
                bytes -= e.bytes();
            }
        }
        entries.put(nextId++, new Entry(tokens, seq.length() == n ? seq : seq.prefix(n), size));
        bytes += size;
        for (Iterator<Entry> it = entries.values().iterator(); bytes > budgetBytes && it.hasNext(); ) {
            bytes -= it.next().bytes();
            it.remove();
        }
    }

    /** Counts a prompt: {@code fromCache} of its tokens came from an entry, the rest were computed. */
    void count(int promptLength, int fromCache) {
        reused.addAndGet(fromCache);
        computed.addAndGet(promptLength - fromCache);
    }

    /** Prompt tokens taken from the cache so far. */
    public long reusedTokens() {
        return reused.get();
    }

    /** Prompt tokens computed so far. */
    public long computedTokens() {
        return computed.get();
    }

    synchronized int size() {
        return entries.size();
    }

    synchronized long bytes() {
        return bytes;
    }

    private static int common(int[] a, int[] b) {
        int n = Math.min(a.length, b.length);
        int i = Arrays.mismatch(a, 0, n, b, 0, n);
        return i < 0 ? n : i;
    }
}
