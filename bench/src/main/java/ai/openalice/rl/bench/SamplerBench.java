package ai.openalice.rl.bench;

import ai.openalice.rl.model.Sampler;
import ai.openalice.rl.model.hf.HfConfig;
import ai.openalice.rl.model.hf.HfModel;
import ai.openalice.rl.model.onnx.CacheLayout;
import ai.openalice.rl.model.onnx.HfOnnxExport;
import ai.openalice.rl.policy.KvSequence;
import ai.openalice.rl.policy.OrtDecoder;
import ai.openalice.rl.testkit.PythonReference;
import ai.openalice.rl.testkit.RealVllm;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.CompletableFuture;

/**
 * Sampling a real model on this machine, one run: SmolLM2-135M-Instruct (float32) decoding after
 * prompts as long as an episode's, by the inference service's engine ({@link OrtDecoder}: chunked
 * prefill, then batched steps) at 1 and 2 ONNX Runtime threads, by vLLM's CPU build over HTTP, and
 * the bound that reading the weights (and each stream's KV cache) once per decode step sets at the
 * memory bandwidth measured in the same run.
 * <pre>bench/run -Dalice.model.smollm2=DIR -Dalice.vllm.python=PY sampler [PROMPT] [TOKENS] [STREAMS]</pre>
 */
final class SamplerBench {
    private SamplerBench() {}

    private static final ObjectMapper JSON = new ObjectMapper();

    /** Decode figures of one sampler: prefill of one prompt, and decode tokens/s at 1 and at n streams. */
    record Figures(double prefillMs, double one, double many) {}

    static void run(String[] args) throws Exception {
        int prompt = args.length > 1 ? Integer.parseInt(args[1]) : 2000;
        int tokens = args.length > 2 ? Integer.parseInt(args[2]) : 256;
        int streams = args.length > 3 ? Integer.parseInt(args[3]) : 8;
        Path dir = PythonReference.smolLm2();
        HfModel model = HfModel.load(dir);
        HfConfig c = model.config();
        Map<String, float[]> weights = model.floats();
        long weightBytes = 4L * weights.values().stream().mapToLong(w -> w.length).sum();
        var layout = CacheLayout.of(c);
        long kvPerToken = 2L * c.layers() * c.kvHeads() * c.headDim() * Float.BYTES;
        System.out.printf("%nsampler: SmolLM2-135M-Instruct, float32: %,d bytes of weights, %,d bytes of KV cache a token; prompts of %d tokens, %d generated,"
                + " 1 and %d streams%n", weightBytes, kvPerToken, prompt, tokens, streams);

        double[] bw = {bandwidth(1), bandwidth(2)};
        double best = Math.max(bw[0], bw[1]);
        double context = prompt + tokens / 2.0; // the cache read at an average step
        double boundOne = best / (weightBytes + kvPerToken * context);
        double boundMany = streams * best / (weightBytes + streams * kvPerToken * context);
        System.out.printf("  memory read bandwidth: %.1f GB/s one thread, %.1f GB/s two%n", bw[0] / 1e9, bw[1] / 1e9);
        System.out.printf("  bound (weights + caches read once a step at %.1f GB/s): %.1f tokens/s one stream, %.1f at %d streams%n", best / 1e9, boundOne,
                boundMany, streams);

        Path onnx = Files.createTempDirectory("bench-sampler").resolve("model.onnx");
        HfOnnxExport.export(c, weights, onnx, "bench", 0);
        onnx.toFile().deleteOnExit();
        onnx.getParent().toFile().deleteOnExit();
        weights = null;
        System.out.printf("  %-36s %12s %16s %20s%n", "sampler", "prefill (ms)", "1 stream (tok/s)", streams + " streams (tok/s)");
        for (int threads : new int[] {1, 2}) {
            Figures f = ours(onnx, layout, threads, prompt, tokens, streams);
            System.out.println(row("inference (ONNX Runtime, " + threads + (threads == 1 ? " thread)" : " threads)"), f, boundOne, boundMany));
        }
        String python = System.getProperty("alice.vllm.python", "");
        if (python.isBlank()) {
            System.out.println("  vLLM: not run (-Dalice.vllm.python is not set; dev/stack env prints it)");
        } else {
            // vLLM's default keeps one core for its server process and binds OpenMP to the rest (one thread here); then both cores
            var settings = new LinkedHashMap<String, Map<String, String>>();
            settings.put("vLLM CPU build, default threads", Map.of());
            settings.put("vLLM CPU build, OpenMP on all cores", Map.of("VLLM_CPU_OMP_THREADS_BIND", "0-" + (Runtime.getRuntime().availableProcessors() - 1),
                    "VLLM_CPU_NUM_OF_RESERVED_CPU", "0"));
            int n = 0;
            for (var e : settings.entrySet()) {
                try (var vllm = RealVllm.serve(dir, prompt + tokens + 16, Path.of("bench", "target", "sampler-vllm-" + n++ + ".log").toAbsolutePath(),
                        e.getValue())) {
                    System.out.println(row(e.getKey(), vllm(vllm.url(), dir.toString(), c.vocabSize(), prompt, tokens, streams), boundOne, boundMany));
                }
            }
        }
    }

    private static String row(String name, Figures f, double boundOne, double boundMany) {
        return String.format("  %-36s %12.0f %9.1f (%.2fx) %13.1f (%.2fx)", name, f.prefillMs(), f.one(), f.one() / boundOne, f.many(), f.many() / boundMany);
    }

    /** Bytes a second that {@code threads} threads read summing a 1 GiB array each pass, best of 5 passes. */
    static double bandwidth(int threads) throws Exception {
        int n = 1 << 27; // longs: 1 GiB
        long[] a = new long[n];
        for (int i = 0; i < n; i++) {
            a[i] = i;
        }
        long sink = 0;
        double best = 0;
        for (int pass = 0; pass < 6; pass++) {
            var parts = new ArrayList<CompletableFuture<Long>>();
            long t0 = System.nanoTime();
            for (int t = 0; t < threads; t++) {
                int from = (int) ((long) n * t / threads);
                int to = (int) ((long) n * (t + 1) / threads);
                parts.add(CompletableFuture.supplyAsync(() -> sum(a, from, to), r -> new Thread(r).start()));
            }
            for (var p : parts) {
                sink += p.get();
            }
            double secs = (System.nanoTime() - t0) / 1e9;
            if (pass > 0) { // the first pass warms the JIT
                best = Math.max(best, 8.0 * n / secs);
            }
        }
        if (sink == 42) {
            System.out.print("");
        }
        return best;
    }

    private static long sum(long[] a, int from, int to) {
        long s = 0;
        for (int i = from; i < to; i++) {
            s += a[i];
        }
        return s;
    }

    /** The inference service's engine: each prompt prefilled in chunks, then every stream stepped in one batch. */
    private static Figures ours(Path onnx, CacheLayout layout, int threads, int prompt, int tokens, int streams) {
        try (var dec = new OrtDecoder(onnx, layout, threads, false, 0)) {
            var rnd = new Random(7);
            decode(dec, List.of(prompts(rnd, 1, 64, layout.vocabSize())), 4); // warm-up
            long t0 = System.nanoTime();
            var seq = new KvSequence[1];
            dec.prefill(prompts(rnd, 1, prompt, layout.vocabSize())[0], seq);
            double prefillMs = (System.nanoTime() - t0) / 1e6;
            double one = decode(dec, List.of(prompts(rnd, 1, prompt, layout.vocabSize())), tokens);
            double many = decode(dec, List.of(prompts(rnd, streams, prompt, layout.vocabSize())), tokens);
            return new Figures(prefillMs, one, many);
        }
    }

    /** Prefills every prompt (untimed), then decodes {@code tokens} greedy tokens for each in one batch: aggregate tokens/s. */
    private static double decode(OrtDecoder dec, List<int[]> prompts, int tokens) {
        var seqs = new ArrayList<KvSequence>();
        int[] next = new int[prompts.size()];
        for (int i = 0; i < next.length; i++) {
            var s = new KvSequence[1];
            next[i] = Sampler.argmax(dec.prefill(prompts.get(i), s));
            seqs.add(s[0]);
        }
        long t0 = System.nanoTime();
        try (var batch = dec.batch(seqs)) {
            for (int t = 0; t < tokens; t++) {
                float[][] logits = batch.step(next);
                for (int i = 0; i < next.length; i++) {
                    next[i] = Sampler.argmax(logits[i]);
                }
            }
        }
        return (double) next.length * tokens / ((System.nanoTime() - t0) / 1e9);
    }

    /** {@code n} prompts of random token ids (distinct, so that no cache serves one from another). */
    private static int[][] prompts(Random rnd, int n, int length, int vocab) {
        var out = new int[n][];
        for (int i = 0; i < n; i++) {
            out[i] = rnd.ints(length, 0, vocab).toArray();
        }
        return out;
    }

    /**
     * vLLM through its OpenAI completions route, prompts as token ids, greedy, {@code ignore_eos}:
     * decode tokens/s from the difference between {@code tokens} and 1 generated token on fresh
     * prompts (vLLM's prefix cache never hits), so that the prefill cancels out.
     */
    private static Figures vllm(URI base, String model, int vocab, int prompt, int tokens, int streams) throws Exception {
        var http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).connectTimeout(Duration.ofSeconds(5)).build(); // uvicorn drops the body of an h2c upgrade
        var rnd = new Random(11);
        complete(http, base, model, prompts(rnd, 1, 64, vocab), 4); // warm-up
        double prefillOne = complete(http, base, model, prompts(rnd, 1, prompt, vocab), 1);
        double fullOne = complete(http, base, model, prompts(rnd, 1, prompt, vocab), tokens);
        double prefillMany = complete(http, base, model, prompts(rnd, streams, prompt, vocab), 1);
        double fullMany = complete(http, base, model, prompts(rnd, streams, prompt, vocab), tokens);
        return new Figures(prefillOne * 1000, (tokens - 1) / (fullOne - prefillOne), (double) streams * (tokens - 1) / (fullMany - prefillMany));
    }

    /** Sends every prompt at once, {@code tokens} tokens each; seconds until the last answer, which must have them all. */
    private static double complete(HttpClient http, URI base, String model, int[][] prompts, int tokens) throws Exception {
        var calls = new ArrayList<CompletableFuture<HttpResponse<String>>>();
        long t0 = System.nanoTime();
        for (int[] p : prompts) {
            var body = JSON.createObjectNode().put("model", model).put("max_tokens", tokens).put("temperature", 0.0).put("ignore_eos", true);
            var ids = body.putArray("prompt");
            for (int id : p) {
                ids.add(id);
            }
            var request = HttpRequest.newBuilder(base.resolve("/v1/completions")).timeout(Duration.ofMinutes(10)).header("Content-Type", "application/json")
                    .POST(HttpRequest.BodyPublishers.ofString(body.toString())).build();
            calls.add(http.sendAsync(request, HttpResponse.BodyHandlers.ofString()));
        }
        for (var call : calls) {
            var r = call.get();
            var usage = JSON.readTree(r.body()).path("usage");
            if (r.statusCode() != 200 || usage.path("completion_tokens").asInt() != tokens) {
                throw new IllegalStateException("vLLM answered " + r.statusCode() + ": " + r.body());
            }
        }
        return (System.nanoTime() - t0) / 1e9;
    }
}
