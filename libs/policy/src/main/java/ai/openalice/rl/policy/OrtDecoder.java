package ai.openalice.rl.policy;

import ai.onnxruntime.OnnxTensor;
import ai.onnxruntime.OrtEnvironment;
import ai.onnxruntime.OrtException;
import ai.onnxruntime.OrtSession;
import ai.openalice.rl.model.GptConfig;
import ai.openalice.rl.model.onnx.CacheLayout;
import java.nio.FloatBuffer;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * An exported model on ONNX Runtime with its KV cache: a prompt is prefilled once, then each
 * decode step feeds only the new tokens. Decode steps of several sequences run as one batch: the
 * caches are left-padded to the longest, and the attention mask hides the padding. A batch keeps
 * the cache the graph reads in two parts (a past it leaves alone, a recent part each step extends)
 * and merges them every {@link #FOLD} steps; a graph exported before that reads its cache whole.
 */
public final class OrtDecoder implements AutoCloseable {
    static final OrtEnvironment ENV = OrtEnvironment.getEnvironment();

    final OrtSession session;
    final CacheLayout config;
    /** Whether the graph reads its cache in two parts (recent_*; every export since 2026-12-07) or whole (older checkpoints' graphs). */
    final boolean split;

    /**
     * A batch merges its recent part into its past once the recent part is this long. A step copies
     * the recent part (R/2 positions a step on average) and a merge the whole cache (L positions,
     * three times: out of ONNX Runtime, into one array, back in): sqrt(6L) balances them, 110 at
     * 2,000 tokens; 128 is the power of two near it.
     */
    static final int FOLD = 128;

    /** Default budget of the prefix cache: 128 MiB, 32,768 positions of the built-in model. */
    public static final long DEFAULT_PREFIX_CACHE_BYTES = 128L << 20;

    private final PrefixCache prefixes;

    /**
     * The logits a prefill may bring back at once: 2^24 floats (64 MiB; ONNX Runtime's Java copy
     * doubles it). A longer prompt is fed in chunks, each extending the cache, so that a 6,000-token
     * prompt of a 49,152-token vocabulary is not 1.2 GB of logits of which only the last row is used.
     */
    static final long PREFILL_LOGITS_FLOATS = 1L << 24;

    private int prefillChunk;

    public OrtDecoder(Path onnx, GptConfig config, int intraOpThreads) {
        this(onnx, config, intraOpThreads, false, DEFAULT_PREFIX_CACHE_BYTES);
    }

    /**
     * With {@code cuda}, the CUDA execution provider (the {@code gpu} Maven profile's
     * onnxruntime_gpu, CUDA 12, cuDNN 9); {@code prefixCacheBytes} bounds the caches of finished
     * generations kept for prompts that start the same way (0: none).
     */
    public OrtDecoder(Path onnx, GptConfig config, int intraOpThreads, boolean cuda, long prefixCacheBytes) {
        this(onnx, CacheLayout.of(config), intraOpThreads, cuda, prefixCacheBytes);
    }

    /** Any exported model with this cache layout (the built-in GPT's or a HuggingFace family's). */
    public OrtDecoder(Path onnx, CacheLayout config, int intraOpThreads, boolean cuda, long prefixCacheBytes) {
        this.config = config;
        this.prefixes = new PrefixCache(prefixCacheBytes, config.bytesPerPosition());
        this.prefillChunk = (int) Math.max(1, Math.min(Integer.MAX_VALUE, PREFILL_LOGITS_FLOATS / Math.max(1, config.vocabSize())));
        try {
            var opts = new OrtSession.SessionOptions();
            opts.setIntraOpNumThreads(intraOpThreads);
            opts.setInterOpNumThreads(1);
            opts.setOptimizationLevel(OrtSession.SessionOptions.OptLevel.ALL_OPT);
            if (cuda) {
                try {
                    opts.addCUDA(0);
                } catch (OrtException e) {
                    throw new PolicyException("the CUDA execution provider is not available (" + e.getMessage()
                            + "); build with -Pgpu and install CUDA 12 and cuDNN 9, or use the CPU", e);
                }
            }
            this.session = ENV.createSession(onnx.toString(), opts);
            this.split = session.getInputNames().contains("recent_key_0");
        } catch (OrtException e) {
            throw new PolicyException("cannot load " + onnx + " into ONNX Runtime: " + e.getMessage(), e);
        }
    }

    public CacheLayout config() {
        return config;
    }

    /**
     * Runs the prompt; returns the new sequence and the logits of its last position. When an
     * earlier generation's cache ({@link #remember}) covers the prompt's start, only the rest is
     * computed.
     */
    public float[] prefill(int[] prompt, KvSequence[] out) {
        var hit = prefixes.longest(prompt);
        KvSequence seq = hit.map(PrefixCache.Hit::seq).orElseGet(() -> new KvSequence(config.layers(), config.kvHeads()));
        int from = hit.map(PrefixCache.Hit::length).orElse(0);
        prefixes.count(prompt.length, from);
        out[0] = seq;
        return extend(seq, Arrays.copyOfRange(prompt, from, prompt.length));
    }

    /**
     * Feeds {@code tokens} after what {@code seq} holds (its cache in Java arrays), in chunks of at
     * most {@link #prefillChunk} positions; returns the logits after the last.
     */
    float[] extend(KvSequence seq, int[] tokens) {
        float[] last = null;
        int from = 0;
        do {
            int to = Math.min(tokens.length, from + prefillChunk);
            int p = seq.length;
            long[][] ids = {toLong(Arrays.copyOfRange(tokens, from, to))};
            long[][] pos = {range(p, p + to - from)};
            long[][] mask = {ones(p + to - from)};
            float[][][] logits = run(List.of(seq), ids, pos, mask, p);
            last = logits[0][to - from - 1];
            from = to;
        } while (from < tokens.length);
        return last;
    }

    /** Feeds prompts in chunks of {@code positions} (tests; the default follows {@link #PREFILL_LOGITS_FLOATS}). */
    OrtDecoder withPrefillChunk(int positions) {
        this.prefillChunk = positions;
        return this;
    }

    /** The logits after every position of {@code tokens}, in one pass with no cache kept: [n][vocab]. */
    public float[][] logitsOfEveryPosition(int[] tokens) {
        var seq = new KvSequence(config.layers(), config.kvHeads());
        return run(List.of(seq), new long[][] {toLong(tokens)}, new long[][] {range(0, tokens.length)}, new long[][] {ones(tokens.length)}, 0)[0];
    }

    /**
     * Keeps a finished generation's cache for later prompts that start with {@code prompt} and
     * {@code generated}; {@code seq}'s cache must be in Java arrays (after {@link Batch#release}).
     */
    public void remember(int[] prompt, int[] generated, KvSequence seq) {
        prefixes.put(prompt, generated, seq);
    }

    /** The prefix cache's counts: prompt tokens reused and computed. */
    public PrefixCache prefixCache() {
        return prefixes;
    }

    /** One decode step for every sequence (token i to sequence i); returns each one's next-token logits. */
    public float[][] step(List<KvSequence> seqs, int[] tokens) {
        int b = seqs.size();
        int maxPast = seqs.stream().mapToInt(KvSequence::length).max().orElse(0);
        long[][] ids = new long[b][1];
        long[][] pos = new long[b][1];
        long[][] mask = new long[b][maxPast + 1];
        for (int i = 0; i < b; i++) {
            int p = seqs.get(i).length;
            ids[i][0] = tokens[i];
            pos[i][0] = p;
            for (int j = maxPast - p; j <= maxPast; j++) {
                mask[i][j] = 1;
            }
        }
        float[][][] logits = run(seqs, ids, pos, mask, maxPast);
        float[][] last = new float[b][];
        for (int i = 0; i < b; i++) {
            last[i] = logits[i][0];
        }
        return last;
    }

    private float[][][] run(List<KvSequence> seqs, long[][] ids, long[][] pos, long[][] mask, int maxPast) {
        int b = seqs.size();
        int h = config.kvHeads();
        int hd = config.headDim();
        int s = ids[0].length;
        var in = new HashMap<String, OnnxTensor>();
        try {
            in.put("input_ids", OnnxTensor.createTensor(ENV, ids));
            in.put("position_ids", OnnxTensor.createTensor(ENV, pos));
            in.put("attention_mask", OnnxTensor.createTensor(ENV, mask));
            long[] shape = {b, h, maxPast, hd};
            for (int l = 0; l < config.layers(); l++) {
                in.put("past_key_" + l, OnnxTensor.createTensor(ENV, FloatBuffer.wrap(pack(seqs, l, true, maxPast, h, hd)), shape));
                in.put("past_value_" + l, OnnxTensor.createTensor(ENV, FloatBuffer.wrap(pack(seqs, l, false, maxPast, h, hd)), shape));
            }
            if (split) {
                in.putAll(emptyRecent(b));
            }
            try (OrtSession.Result r = session.run(in)) {
                float[][][] logits = (float[][][]) r.get("logits").orElseThrow().getValue();
                int total = split ? s : maxPast + s; // a split graph returns the new positions only (its recent part was empty)
                for (int l = 0; l < config.layers(); l++) {
                    unpack(seqs, l, true, ((OnnxTensor) r.get("present_key_" + l).orElseThrow()).getFloatBuffer(), total, s, h, hd);
                    unpack(seqs, l, false, ((OnnxTensor) r.get("present_value_" + l).orElseThrow()).getFloatBuffer(), total, s, h, hd);
                }
                for (KvSequence q : seqs) {
                    q.length += s;
                }
                return logits;
            }
        } catch (OrtException e) {
            throw new PolicyException("ONNX Runtime failed: " + e.getMessage(), e);
        } finally {
            in.values().forEach(OnnxTensor::close);
        }
    }

    /** recent_key_l / recent_value_l of no positions, for {@code b} sequences (the caller closes them). */
    Map<String, OnnxTensor> emptyRecent(int b) throws OrtException {
        var out = new HashMap<String, OnnxTensor>();
        long[] shape = {b, config.kvHeads(), 0, config.headDim()};
        for (int l = 0; l < config.layers(); l++) {
            out.put("recent_key_" + l, OnnxTensor.createTensor(ENV, FloatBuffer.allocate(0), shape));
            out.put("recent_value_" + l, OnnxTensor.createTensor(ENV, FloatBuffer.allocate(0), shape));
        }
        return out;
    }

    /** The batch's cache for layer l, each sequence left-padded to maxPast: [B, H, maxPast, hd]. */
    static float[] pack(List<KvSequence> seqs, int l, boolean keys, int maxPast, int h, int hd) {
        float[] out = new float[seqs.size() * h * maxPast * hd];
        for (int i = 0; i < seqs.size(); i++) {
            KvSequence q = seqs.get(i);
            float[] src = keys ? q.keys[l] : q.values[l];
            int p = q.length;
            int pad = maxPast - p;
            for (int head = 0; head < h; head++) {
                System.arraycopy(src, head * p * hd, out, ((i * h + head) * maxPast + pad) * hd, p * hd);
            }
        }
        return out;
    }

    /**
     * Takes each sequence's part of present [B, H, total, hd]: its last (length + s) positions, or,
     * when present holds fewer ({@code total == s}, a split graph's new positions), its cache so far
     * followed by them.
     */
    private static void unpack(List<KvSequence> seqs, int l, boolean keys, FloatBuffer present, int total, int s, int h, int hd) {
        float[] all = new float[present.remaining()];
        present.get(all);
        for (int i = 0; i < seqs.size(); i++) {
            KvSequence q = seqs.get(i);
            int n = q.length + s;
            int kept = Math.max(0, n - total); // positions of the sequence's own arrays, before present's
            float[] old = keys ? q.keys[l] : q.values[l];
            float[] dst = new float[h * n * hd];
            for (int head = 0; head < h; head++) {
                System.arraycopy(old, head * q.length * hd, dst, head * n * hd, kept * hd);
                System.arraycopy(all, ((i * h + head) * total + (total - (n - kept))) * hd, dst, (head * n + kept) * hd, (n - kept) * hd);
            }
            if (keys) {
                q.keys[l] = dst;
            } else {
                q.values[l] = dst;
            }
        }
    }


    /** A batch of sequences whose caches are in Java arrays (after {@link #prefill} or {@link Batch#release}). */
    public DecodeBatch batch(List<KvSequence> members) {
        return new DecodeBatch(this, members);
    }

    /** Each member's cache from a batch tensor [B, H, total, hd] with per-member left padding. */
    static void unpackPadded(List<KvSequence> seqs, int[] pad, int l, boolean keys, float[] all, int total, int h, int hd) {
        for (int i = 0; i < seqs.size(); i++) {
            int n = total - pad[i];
            float[] dst = new float[h * n * hd];
            for (int head = 0; head < h; head++) {
                System.arraycopy(all, ((i * h + head) * total + pad[i]) * hd, dst, head * n * hd, n * hd);
            }
            if (keys) {
                seqs.get(i).keys[l] = dst;
            } else {
                seqs.get(i).values[l] = dst;
            }
        }
    }

    static long[] toLong(int[] a) {
        long[] r = new long[a.length];
        for (int i = 0; i < a.length; i++) {
            r[i] = a[i];
        }
        return r;
    }

    static long[] range(int from, int to) {
        long[] r = new long[to - from];
        for (int i = 0; i < r.length; i++) {
            r[i] = from + i;
        }
        return r;
    }

    static long[] ones(int n) {
        long[] r = new long[n];
        Arrays.fill(r, 1);
        return r;
    }

    @Override
    public void close() {
        try {
            session.close();
        } catch (OrtException e) {
            throw new PolicyException("closing the ONNX Runtime session: " + e.getMessage(), e);
        }
    }

}
