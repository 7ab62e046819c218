package ai.openalice.rl.tinker;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.assertThrows;

import ai.openalice.rl.testkit.PythonReference;
import ai.openalice.rl.testkit.RealTinker;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.io.TempDir;

/**
 * The protocol against the real SkyRL Tinker server (JAX on CPU, the tiny Qwen3 with a LoRA
 * adapter of rank 4): session and heartbeats, a model, forward and forward_backward through
 * protobuf, optim_step, both saves, sampling, futures and refusals; at step 0 the engine's
 * log-probabilities against transformers' for the same weights. The tests build on each other
 * in order (one model, one optimizer state). Expected values come from the loss's formula applied
 * to the log-probabilities the engine itself reports.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class TinkerRoundTripTest {
    private static final int[] TOKENS = {1, 17, 42, 99, 3, 250, 7, 64, 128, 5};
    private static final float[] ADVANTAGES = {1, 1, 1, 1, -1, -1, -1, -1, 0.5f};
    private static final Map<String, Double> CLIP = Map.of("clip_low_threshold", 0.8, "clip_high_threshold", 1.28);
    private static TinkerClient client;
    private static String model;
    private static float[] before;

    @BeforeAll
    static void connect() {
        client = new TinkerClient(RealTinker.qwen3Tiny(), "tml-unused", TinkerClient.Listener.NONE);
        assertTrue(client.healthy());
        client.createSession(List.of("alice-rl-test"));
        model = client.createLoraModel(RealTinker.baseModel(), 4, 7L);
    }

    @AfterAll
    static void close() {
        client.close();
    }

    @Test
    @Order(1)
    void aHeartbeatKeepsTheSessionAndForwardReadsTheModel() {
        assertTrue(client.heartbeat());
        assertTrue(client.heartbeatsSent() >= 1);
        ForwardBackwardResult r = client.forward(model, 1, List.of(Datum.ofSequence(TOKENS, null, null, null)), LossFn.CROSS_ENTROPY, Map.of());
        before = r.logprobs(0);
        assertEquals(TOKENS.length - 1, before.length);
        double nll = 0;
        for (int t = 0; t < before.length; t++) {
            assertTrue(before[t] < 0 && before[t] > -20, "a log-probability: " + before[t]);
            assertEquals(-before[t], r.elementwiseLoss(0)[t], 1e-6, "cross entropy is -logp at " + t);
            nll -= before[t];
        }
        assertEquals(nll, r.loss(), 1e-4);
        // A new LoRA adapter adds nothing: the engine's log-probabilities are the base model's, as transformers computes them.
        String ids = Arrays.stream(TOKENS).mapToObj(Integer::toString).collect(Collectors.joining(","));
        double[] reference = PythonReference.doubles(PythonReference.reference("logprobs", "--model", RealTinker.baseModel(), "--tokens", ids)
                .get("logprobs"));
        for (int t = 0; t < before.length; t++) {
            assertEquals(reference[t], before[t], 1e-4, "the engine's log-probability of token " + (t + 1) + " against transformers'");
        }
    }

    @Test
    @Order(2)
    void ppoLossIsTheClippedObjectiveSummedOverTokens() {
        // Sampler log-probabilities set so that ratios fall inside, above and below the clip range.
        float[] shift = {0, 0.5f, -0.5f, 0.1f, 0.5f, -0.5f, 0, 0.1f, 0.3f};
        float[] sampler = new float[before.length];
        for (int t = 0; t < sampler.length; t++) {
            sampler[t] = before[t] - shift[t];
        }
        float[] weights = {1, 1, 1, 1, 1, 1, 1, 0, 2};
        ForwardBackwardResult r = client.forwardBackward(model, 2, List.of(Datum.ofSequence(TOKENS, sampler, ADVANTAGES, weights)), LossFn.PPO, CLIP);
        double total = 0;
        for (int t = 0; t < sampler.length; t++) {
            assertEquals(before[t], r.logprobs(0)[t], 1e-5, "no step between forward and forward_backward");
            double ratio = Math.exp(r.logprobs(0)[t] - sampler[t]);
            double clipped = Math.min(Math.max(ratio, 0.8), 1.28);
            double term = -weights[t] * Math.min(ratio * ADVANTAGES[t], clipped * ADVANTAGES[t]);
            assertEquals(term, r.elementwiseLoss(0)[t], 1e-5, "the PPO term at " + t + " (ratio " + ratio + ")");
            total += term;
        }
        assertEquals(total, r.loss(), 1e-4);
    }

    @Test
    @Order(3)
    void anOptimizerStepRaisesWhatWasAdvantagedAndLowersTheRest() {
        client.forwardBackward(model, 3, List.of(Datum.ofSequence(TOKENS, before, ADVANTAGES, null)), LossFn.IMPORTANCE_SAMPLING, Map.of());
        Map<String, Double> metrics = client.optimStep(model, 4, new AdamParams(0.01, 0.9, 0.95, 1e-8, 0));
        assertTrue(metrics.values().stream().allMatch(v -> Double.isFinite(v)), metrics.toString());
        float[] after = client.forward(model, 5, List.of(Datum.ofSequence(TOKENS, null, null, null)), LossFn.CROSS_ENTROPY, Map.of()).logprobs(0);
        // The step ascends the advantage-weighted log-likelihood (the gradients of both passes since the last
        // step point the same way): positive-advantage tokens rise on average, negative ones fall. One token
        // alone may move against its advantage (the LoRA weights are shared by every position).
        double raised = 0;
        double lowered = 0;
        for (int t = 0; t < after.length; t++) {
            if (ADVANTAGES[t] > 0) {
                raised += (after[t] - before[t]) / 5;
            } else {
                lowered += (after[t] - before[t]) / 4;
            }
        }
        assertTrue(raised > 0, "positive-advantage tokens moved by " + raised + " on average");
        assertTrue(lowered < 0, "negative-advantage tokens moved by " + lowered + " on average");
    }

    @Test
    @Order(4)
    void aSequenceIdSeenBeforeWithAnotherBodyIsRefused() {
        var e = assertThrows(TinkerRejectedException.class,
                () -> client.forward(model, 5, List.of(Datum.ofSequence(new int[] {1, 2, 3}, null, null, null)), LossFn.CROSS_ENTROPY, Map.of()));
        assertEquals(409, e.status());
        assertTrue(e.getMessage().contains("sequence number was reused"), e.getMessage());
    }

    @Test
    @Order(5)
    void aLossOptionTheLossDoesNotTakeIsRefusedByName() {
        var e = assertThrows(TinkerRejectedException.class, () -> client.forwardBackward(model, 6,
                List.of(Datum.ofSequence(TOKENS, before, ADVANTAGES, null)), LossFn.PPO, Map.of("clip_ratio", 0.2)));
        assertEquals(422, e.status());
        assertTrue(e.getMessage().contains("clip_ratio"), e.getMessage());
    }

    @Test
    @Order(6)
    void savedSamplerWeightsSampleWithTheModelsOwnLogprobs() {
        String state = client.saveWeights(model, "state-1");
        assertTrue(state.startsWith("tinker://" + model + "/"), state);
        String sampler = client.saveWeightsForSampler(model, "sampler-1");
        assertTrue(sampler.startsWith("tinker://" + model + "/"), sampler);
        int[] prompt = Arrays.copyOf(TOKENS, 4);
        List<Sample> samples = client.sample(sampler, prompt, 2, new SamplingParams(6, 1.0, 11L, List.of()));
        assertEquals(2, samples.size());
        int seq = 7;
        for (Sample s : samples) {
            assertEquals(6, s.tokens().length);
            assertEquals("length", s.stopReason());
            int[] whole = new int[prompt.length + s.tokens().length];
            System.arraycopy(prompt, 0, whole, 0, prompt.length);
            System.arraycopy(s.tokens(), 0, whole, prompt.length, s.tokens().length);
            float[] lp = client.forward(model, seq++, List.of(Datum.ofSequence(whole, null, null, null)),
                    LossFn.CROSS_ENTROPY, Map.of()).logprobs(0);
            float[] sampled = Arrays.copyOfRange(lp, prompt.length - 1, lp.length);
            assertArrayEquals(sampled, s.logprobs(), 1e-4f, "the sampler's log-probabilities are the trained model's");
        }
    }

    @Test
    @Order(7)
    void theSamplerWeightsArriveAsAPeftAdapterThatTransformersReadsAsTheEngineDoes(@TempDir Path tmp) throws Exception {
        String sampler = client.saveWeightsForSampler(model, "sampler-2");
        Path adapter = tmp.resolve("adapter");
        client.downloadSamplerWeights(sampler, adapter);
        assertTrue(Files.isRegularFile(adapter.resolve("adapter_config.json")));
        assertTrue(Files.isRegularFile(adapter.resolve("adapter_model.safetensors")));
        assertEquals(List.of("adapter"), Files.list(tmp).map(p -> p.getFileName().toString()).toList(), "nothing left beside it");
        float[] engine = client.forward(model, 20, List.of(Datum.ofSequence(TOKENS, null, null, null)), LossFn.CROSS_ENTROPY, Map.of()).logprobs(0);
        String ids = Arrays.stream(TOKENS).mapToObj(Integer::toString).collect(Collectors.joining(","));
        double[] peft = PythonReference.doubles(PythonReference.reference("logprobs", "--model", RealTinker.baseModel(), "--adapter", adapter.toString(),
                "--tokens", ids).get("logprobs"));
        double moved = 0;
        for (int t = 0; t < engine.length; t++) {
            assertEquals(peft[t], engine[t], 1e-4, "PEFT over transformers against the engine at token " + (t + 1));
            moved = Math.max(moved, Math.abs(engine[t] - before[t]));
        }
        assertTrue(moved > 1e-3, "the adapter is the trained one (moved the log-probabilities by " + moved + ")");
        var e = assertThrows(IllegalArgumentException.class, () -> client.downloadSamplerWeights("s3://bucket/x", tmp.resolve("other")));
        assertTrue(e.getMessage().contains("not a tinker:// path"), e.getMessage());
    }

    /**
     * SkyRL's optim_step does not apply the Tinker API's {@code grad_clip_norm} (its AdamParams have no
     * such field, and an unknown field is ignored): why the trainer refuses {@code trainer.optim.clip-norm}
     * on this engine rather than send it. Adam's first step is lr·g/(|g| + eps) per weight: with eps
     * 1e-3, a gradient clipped to a global norm of 1e-9 would move no weight visibly, one left whole
     * moves them by about the learning rate. Should a later SkyRL clip, this fails and the refusal can go.
     */
    @Test
    @Order(8)
    void theEnginesOptimStepIgnoresTheTinkerApisGradClipNorm() {
        float[] ones = new float[TOKENS.length - 1];
        Arrays.fill(ones, 1f);
        float[][] after = new float[2][];
        for (int i = 0; i < 2; i++) {
            String m = client.createLoraModel(RealTinker.baseModel(), 4, 9L);
            client.forwardBackward(m, 1, List.of(Datum.ofSequence(TOKENS, null, null, ones)), LossFn.CROSS_ENTROPY, Map.of());
            client.optimStep(m, 2, new AdamParams(0.05, 0.9, 0.999, 1e-3, 0, i == 0 ? 0 : 1e-9));
            after[i] = client.forward(m, 3, List.of(Datum.ofSequence(TOKENS, null, null, null)), LossFn.CROSS_ENTROPY, Map.of()).logprobs(0);
        }
        double moved = 0;
        for (int t = 0; t < before.length; t++) {
            moved = Math.max(moved, Math.abs(after[0][t] - before[t]));
        }
        assertTrue(moved > 1e-3, "the unclipped step moved the log-probabilities: at most " + moved);
        assertArrayEquals(after[0], after[1], 1e-6f, "grad_clip_norm 1e-9 sent: the same step as without it");
    }
}
