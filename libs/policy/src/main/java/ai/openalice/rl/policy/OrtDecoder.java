package ai.openalice.rl.policy;

import ai.onnxruntime.OnnxTensor;
import ai.onnxruntime.OrtEnvironment;
import ai.onnxruntime.OrtException;
import ai.onnxruntime.OrtSession;
import ai.openalice.rl.model.GptConfig;
import ai.openalice.rl.model.onnx.CacheLayout;
import java.nio.FloatBuffer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The exported GPT on ONNX Runtime with its KV cache: a prompt is prefilled once, then each
 * decode step feeds only the new tokens. Decode steps of several sequences run as one batch: the
 * caches are left-padded to the longest, and the attention mask hides the padding.
 */
public final class OrtDecoder implements AutoCloseable {
    private static final OrtEnvironment ENV = OrtEnvironment.getEnvironment();

    private final OrtSession session;
    private final CacheLayout config;

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
            try (OrtSession.Result r = session.run(in)) {
                float[][][] logits = (float[][][]) r.get("logits").orElseThrow().getValue();
                int total = maxPast + s;
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

    /** The batch's cache for layer l, each sequence left-padded to maxPast: [B, H, maxPast, hd]. */
    private static float[] pack(List<KvSequence> seqs, int l, boolean keys, int maxPast, int h, int hd) {
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

    /** Takes each sequence's part of present [B, H, total, hd]: its last (length + s) positions. */
    private static void unpack(List<KvSequence> seqs, int l, boolean keys, FloatBuffer present, int total, int s, int h, int hd) {
        float[] all = new float[present.remaining()];
        present.get(all);
        for (int i = 0; i < seqs.size(); i++) {
            KvSequence q = seqs.get(i);
            int n = q.length + s;
            float[] dst = new float[h * n * hd];
            for (int head = 0; head < h; head++) {
                System.arraycopy(all, ((i * h + head) * total + (total - n)) * hd, dst, head * n * hd, n * hd);
            }
            if (keys) {
                q.keys[l] = dst;
            } else {
                q.values[l] = dst;
            }
        }
    }


    /**
     * Sequences decoded together step after step. Between steps the cache stays in ONNX Runtime's
     * tensors — each step's present tensors are the next step's past, no copy — and is copied out
     * only when the batch changes ({@link #release}). Each member keeps its own left padding.
     */
    public final class Batch implements AutoCloseable {
        private final List<KvSequence> members;
        private final int[] pad;
        private final Map<String, OnnxTensor> past = new HashMap<>();
        private OrtSession.Result held;
        private int total;

        private Batch(List<KvSequence> members) {
            this.members = List.copyOf(members);
            this.pad = new int[members.size()];
            int h = config.kvHeads();
            int hd = config.headDim();
            total = members.stream().mapToInt(KvSequence::length).max().orElse(0);
            for (int i = 0; i < pad.length; i++) {
                pad[i] = total - members.get(i).length;
            }
            long[] shape = {members.size(), h, total, hd};
            try {
                for (int l = 0; l < config.layers(); l++) {
                    past.put("past_key_" + l, OnnxTensor.createTensor(ENV, FloatBuffer.wrap(pack(members, l, true, total, h, hd)), shape));
                    past.put("past_value_" + l, OnnxTensor.createTensor(ENV, FloatBuffer.wrap(pack(members, l, false, total, h, hd)), shape));
                }
            } catch (OrtException e) {
                throw new PolicyException("ONNX Runtime failed: " + e.getMessage(), e);
            }
        }

        public List<KvSequence> members() {
            return members;
        }

        /** One decode step: token i to member i; returns each member's next-token logits. */
        public float[][] step(int[] tokens) {
            int b = members.size();
            long[][] ids = new long[b][1];
            long[][] pos = new long[b][1];
            long[][] mask = new long[b][total + 1];
            for (int i = 0; i < b; i++) {
                ids[i][0] = tokens[i];
                pos[i][0] = total - pad[i];
                Arrays.fill(mask[i], pad[i], total + 1, 1L);
            }
            var in = new HashMap<String, OnnxTensor>(past);
            var own = new ArrayList<OnnxTensor>();
            try {
                own.add(OnnxTensor.createTensor(ENV, ids));
                own.add(OnnxTensor.createTensor(ENV, pos));
                own.add(OnnxTensor.createTensor(ENV, mask));
                in.put("input_ids", own.get(0));
                in.put("position_ids", own.get(1));
                in.put("attention_mask", own.get(2));
                OrtSession.Result r = session.run(in);
                if (held != null) {
                    held.close();
                } else {
                    past.values().forEach(OnnxTensor::close);
                }
                held = r;
                for (int l = 0; l < config.layers(); l++) {
                    past.put("past_key_" + l, (OnnxTensor) r.get("present_key_" + l).orElseThrow());
                    past.put("past_value_" + l, (OnnxTensor) r.get("present_value_" + l).orElseThrow());
                }
                total++;
                for (KvSequence q : members) {
                    q.length++;
                }
                float[][][] logits = (float[][][]) r.get("logits").orElseThrow().getValue();
                float[][] last = new float[b][];
                for (int i = 0; i < b; i++) {
                    last[i] = logits[i][0];
                }
                return last;
            } catch (OrtException e) {
                throw new PolicyException("ONNX Runtime failed: " + e.getMessage(), e);
            } finally {
                own.forEach(OnnxTensor::close);
            }
        }

        /** Copies every member's cache back out of the batch (to regroup), and frees the batch. */
        public List<KvSequence> release() {
            int h = config.kvHeads();
            int hd = config.headDim();
            for (int l = 0; l < config.layers(); l++) {
                unpackPadded(members, pad, l, true, past.get("past_key_" + l).getFloatBuffer(), total, h, hd);
                unpackPadded(members, pad, l, false, past.get("past_value_" + l).getFloatBuffer(), total, h, hd);
            }
            close();
            return members;
        }

        @Override
        public void close() {
            if (held != null) {
                held.close();
                held = null;
            } else {
                past.values().forEach(OnnxTensor::close);
            }
            past.clear();
        }
    }

    /** A batch of sequences whose caches are in Java arrays (after {@link #prefill} or {@link Batch#release}). */
    public Batch batch(List<KvSequence> members) {
        return new Batch(members);
    }

    /** Each member's cache from a batch tensor [B, H, total, hd] with per-member left padding. */
    private static void unpackPadded(List<KvSequence> seqs, int[] pad, int l, boolean keys, FloatBuffer buf, int total, int h, int hd) {
        float[] all = new float[buf.remaining()];
        buf.get(all);
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
