package ai.openalice.rl.bench;

import ai.onnxruntime.OnnxTensor;
import ai.onnxruntime.OrtEnvironment;
import ai.onnxruntime.OrtSession;
import ai.openalice.rl.model.GptConfig;
import ai.openalice.rl.model.Sampler;
import ai.openalice.rl.model.checkpoint.Checkpoint;
import ai.openalice.rl.model.djl.Gpt;
import ai.openalice.rl.model.onnx.CacheLayout;
import ai.openalice.rl.model.tokenizer.ByteTokenizer;
import ai.openalice.rl.policy.CompletionRequest;
import ai.openalice.rl.policy.KvSequence;
import ai.openalice.rl.policy.OrtDecoder;
import ai.openalice.rl.policy.OrtPolicy;
import java.nio.FloatBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;

/**
 * Decode throughput of the built-in model (~0.5 M parameters) on ONNX Runtime with one intra-op
 * thread: the policy's single-stream path and the inference service's batched decode (a
 * persistent {@code DecodeBatch}, as its scheduler steps it) with 1, 4 and 16 sequences,
 * against a bare ORT loop that feeds each step's present tensors straight back as the next past
 * (no copies), in the same run; and the time from a checkpoint on disk to serving it
 * (verify + load + warm), which is the swap latency after the event arrives.
 */
final class InferenceBench {
    static final GptConfig CONFIG = new GptConfig(new ByteTokenizer().vocabSize(), 512, 4, 4, 96);
    static final int TOKENS = 256;

    private InferenceBench() {}

    static void run(String[] args) throws Exception {
        System.setProperty("ai.djl.pytorch.num_threads", "1");
        System.setProperty("ai.djl.pytorch.num_interop_threads", "1");
        Path dir = Files.createTempDirectory("bench-inference").resolve("v1");
        try (Gpt gpt = Gpt.initialise(CONFIG, 1)) {
            Checkpoint.save(dir, CONFIG, "byte-v1", 1, 0, gpt.snapshot(), Map.of(), 0);
        }
        int[] prompt = new ByteTokenizer().encode("def add(a, b):\n    ");
        System.out.printf("%nmodel: %,d parameters, context %d; %d tokens per stream, greedy, 1 ORT thread%n",
                CONFIG.parameterCount(), CONFIG.contextLength(), TOKENS);

        double bare = best(3, () -> bareLoop(dir.resolve(Checkpoint.ONNX), CacheLayout.of(CONFIG), prompt, TOKENS));
        double policy;
        try (var p = new OrtPolicy(dir)) {
            var req = new CompletionRequest(prompt, TOKENS, 0, 1, 0L, List.of(), null);
            p.complete(req);
            policy = best(3, () -> {
                long s = System.nanoTime();
                int n = p.complete(req).tokens().length;
                return n / ((System.nanoTime() - s) / 1e9);
            });
        }
        System.out.printf("  bare ORT loop (presents fed back)    %8.0f tokens/s%n", bare);
        System.out.printf("  policy, one stream                   %8.0f tokens/s   ratio %.2fx (target >= 0.9)%n", policy, policy / bare);

        var m = Checkpoint.verify(dir);
        try (var dec = new OrtDecoder(dir.resolve(Checkpoint.ONNX), m.config(), 1)) {
            double one = 0;
            for (int streams : new int[] {1, 4, 16}) {
                double tps = best(3, () -> batched(dec, prompt, streams, TOKENS));
                if (streams == 1) {
                    one = tps;
                }
                System.out.printf("  batched decode, %2d streams           %8.0f tokens/s   %.2fx one stream%n", streams, tps, tps / one);
            }
        }
        long[] swap = new long[5];
        for (int i = 0; i < swap.length; i++) {
            long s = System.nanoTime();
            Checkpoint.verify(dir);
            try (var dec = new OrtDecoder(dir.resolve(Checkpoint.ONNX), CONFIG, 1)) {
                var seq = new KvSequence[1];
                dec.prefill(prompt, seq);
                dec.step(List.of(seq[0]), new int[] {1});
            }
            swap[i] = System.nanoTime() - s;
        }
        Arrays.sort(swap);
        System.out.printf("  checkpoint to serving (verify + load + warm), median of 5: %.0f ms%n", swap[2] / 1e6);
        agentEpisodes(dir.getParent());
    }

    /** The shape of alice-rl train's model: 2 layers, width 128, 4 heads, a 4,096-token context. */
    static final GptConfig AGENT = new GptConfig(new ByteTokenizer().vocabSize(), 4096, 2, 4, 128);
    static final int TASK_PROMPT = 1200;
    static final int COMPLETION = 150;
    static final int OBSERVATION = 250;

    /**
     * Two members of a group playing an agent episode each: a 1,200-token first prompt (the same
     * for both), then turns of 150 generated tokens and a 250-token tool answer until the context
     * is full; every turn's prompt is the whole conversation. With the prefix cache, a turn
     * computes only what is new; without it (the baseline, same run), it prefills everything.
     */
    private static void agentEpisodes(Path root) throws Exception {
        Path dir = root.resolve("agent");
        try (Gpt gpt = Gpt.initialise(AGENT, 2)) {
            Checkpoint.save(dir, AGENT, "byte-v1", 1, 0, gpt.snapshot(), Map.of(), 0);
        }
        System.out.printf("%nagent episodes: model of %,d parameters, context %d; 2 members of a group, a %d-token first prompt, turns of"
                + " %d generated + %d observed tokens until the context is full%n", AGENT.parameterCount(), AGENT.contextLength(), TASK_PROMPT,
                COMPLETION, OBSERVATION);
        double[] off = episodes(dir, 0);
        double[] on = episodes(dir, OrtDecoder.DEFAULT_PREFIX_CACHE_BYTES);
        System.out.printf("  without prefix cache  %6.2f s per episode, %5.0f prompt tokens computed per turn%n", off[0], off[1]);
        System.out.printf("  with prefix cache     %6.2f s per episode, %5.0f prompt tokens computed per turn   %.2fx faster%n", on[0], on[1],
                off[0] / on[0]);
    }

    /** Seconds per episode and prompt tokens computed per turn, best of 2 rounds. */
    private static double[] episodes(Path dir, long cacheBytes) throws Exception {
        double best = Double.MAX_VALUE;
        double computed = 0;
        var rnd = new Random(5);
        int[] task = rnd.ints(TASK_PROMPT, 32, 127).toArray();
        for (int round = 0; round < 2; round++) {
            try (var dec = new OrtDecoder(dir.resolve(Checkpoint.ONNX), AGENT, 1, false, cacheBytes)) {
                long start = System.nanoTime();
                int turns = 0;
                for (int member = 0; member < 2; member++) {
                    int[] prompt = task;
                    while (prompt.length + COMPLETION + OBSERVATION + COMPLETION < AGENT.contextLength()) {
                        int[] generated = turn(dec, prompt);
                        int[] observed = rnd.ints(OBSERVATION, 32, 127).toArray();
                        int[] next = Arrays.copyOf(prompt, prompt.length + generated.length + observed.length);
                        System.arraycopy(generated, 0, next, prompt.length, generated.length);
                        System.arraycopy(observed, 0, next, prompt.length + generated.length, observed.length);
                        prompt = next;
                        turns++;
                    }
                }
                best = Math.min(best, (System.nanoTime() - start) / 1e9 / 2);
                computed = (double) dec.prefixCache().computedTokens() / turns;
            }
        }
        return new double[] {best, computed};
    }

    /** One turn as OrtPolicy plays it: prefill, greedy decode in a one-member batch, the cache kept for the next turn. */
    private static int[] turn(OrtDecoder dec, int[] prompt) {
        var seq = new KvSequence[1];
        int[] out = new int[COMPLETION];
        out[0] = Sampler.argmax(dec.prefill(prompt, seq));
        var batch = dec.batch(List.of(seq[0]));
        for (int t = 1; t < COMPLETION; t++) {
            out[t] = Sampler.argmax(batch.step(new int[] {out[t - 1]})[0]);
        }
        batch.release();
        dec.remember(prompt, out, seq[0]);
        return out;
    }

    interface Measure {
        double run() throws Exception;
    }

    static double best(int n, Measure m) throws Exception {
        double best = 0;
        for (int i = 0; i < n; i++) {
            best = Math.max(best, m.run());
        }
        return best;
    }

    /** Sequences decoded together, every step one batch; returns aggregate tokens/s. */
    static double batched(OrtDecoder dec, int[] prompt, int streams, int tokens) {
        var seqs = new ArrayList<KvSequence>();
        int[] next = new int[streams];
        for (int i = 0; i < streams; i++) {
            var s = new KvSequence[1];
            next[i] = new Sampler(0, 1, 0).next(dec.prefill(prompt, s)).token();
            seqs.add(s[0]);
        }
        long start = System.nanoTime();
        try (var batch = dec.batch(seqs)) {
            for (int t = 0; t < tokens; t++) {
                float[][] logits = batch.step(next);
                for (int i = 0; i < streams; i++) {
                    next[i] = Sampler.argmax(logits[i]);
                }
            }
        }
        return (double) streams * tokens / ((System.nanoTime() - start) / 1e9);
    }

    /**
     * The least a decode loop can do on ORT: present tensors go back as the next recent part of the
     * cache, untouched, the fixed past empty (so each step's graph extends the whole cache).
     */
    static double bareLoop(Path onnx, CacheLayout layout, int[] prompt, int tokens) throws Exception {
        var env = OrtEnvironment.getEnvironment();
        var opts = new OrtSession.SessionOptions();
        opts.setIntraOpNumThreads(1);
        opts.setInterOpNumThreads(1);
        try (var session = env.createSession(onnx.toString(), opts)) {
            Map<String, OnnxTensor> empty = new HashMap<>();
            Map<String, OnnxTensor> past = new HashMap<>();
            long[] kv = {1, layout.kvHeads(), 0, layout.headDim()};
            for (int l = 0; l < layout.layers(); l++) {
                for (String part : List.of("past_key_", "past_value_", "recent_key_", "recent_value_")) {
                    empty.put(part + l, OnnxTensor.createTensor(env, FloatBuffer.allocate(0), kv));
                }
            }
            past.putAll(empty);
            long[] ids = Arrays.stream(prompt).asLongStream().toArray();
            long[] pos = new long[ids.length];
            for (int i = 0; i < pos.length; i++) {
                pos[i] = i;
            }
            OrtSession.Result held = null;
            int length = 0;
            long start = 0;
            for (int t = 0; t <= tokens; t++) {
                if (t == 1) {
                    start = System.nanoTime();
                }
                var in = new HashMap<String, OnnxTensor>(past);
                long[] mask = new long[length + ids.length];
                Arrays.fill(mask, 1);
                in.put("input_ids", OnnxTensor.createTensor(env, new long[][] {ids}));
                in.put("position_ids", OnnxTensor.createTensor(env, new long[][] {pos}));
                in.put("attention_mask", OnnxTensor.createTensor(env, new long[][] {mask}));
                OrtSession.Result r = session.run(in);
                in.get("input_ids").close();
                in.get("position_ids").close();
                in.get("attention_mask").close();
                if (held != null) {
                    held.close();
                }
                held = r;
                float[][][] logits = (float[][][]) r.get("logits").orElseThrow().getValue();
                length += ids.length;
                int next = Sampler.argmax(logits[0][logits[0].length - 1]);
                for (int l = 0; l < layout.layers(); l++) {
                    past.put("recent_key_" + l, (OnnxTensor) r.get("present_key_" + l).orElseThrow());
                    past.put("recent_value_" + l, (OnnxTensor) r.get("present_value_" + l).orElseThrow());
                }
                ids = new long[] {next};
                pos = new long[] {length};
            }
            double tps = tokens / ((System.nanoTime() - start) / 1e9);
            held.close();
            empty.values().forEach(OnnxTensor::close);
            return tps;
        }
    }


}
