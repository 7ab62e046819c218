package ai.openalice.rl.trainer.tinker;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ai.openalice.rl.model.tokenizer.HuggingFaceTokenizer;
import ai.openalice.rl.policy.Completion;
import ai.openalice.rl.policy.CompletionRequest;
import ai.openalice.rl.policy.PolicyException;
import ai.openalice.rl.policy.TinkerPolicy;
import ai.openalice.rl.testkit.PythonReference;
import ai.openalice.rl.testkit.RealTinker;
import ai.openalice.rl.tinker.TinkerClient;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * runner.policy=tinker's sampler on the real engine: the base model until a version is published,
 * then that version's sampler weights — each completion's log-probabilities are those of the model
 * it claims (transformers, and PEFT over it for the trained adapter), read by the policies' common
 * rules (an end token kept, the context's room), and labelled with the version that drew it.
 */
class TinkerPolicyTest {
    /** Qwen's <|im_start|>, "user", a newline, two letters, <|im_end|>, a newline, <|im_start|> and "a". */
    private static final int[] PROMPT = {257, 117, 115, 101, 114, 10, 104, 105, 258, 10, 257, 97};

    @Test
    void theBaseModelIsSampledUntilAVersionIsPublishedThenThatVersionsWeights(@TempDir Path tmp) throws Exception {
        var model = new TinkerLearner.Model(RealTinker.baseModel(), Path.of(RealTinker.baseModel()), 4, 13, false);
        try (var tokenizer = HuggingFaceTokenizer.forModel(PythonReference.qwen3Tiny());
                var client = new TinkerClient(RealTinker.qwen3Tiny(), null, Duration.ofSeconds(30));
                var learner = TinkerLearner.create(new TinkerClient(RealTinker.qwen3Tiny(), null, TinkerClient.Listener.NONE), model,
                        TinkerLearnerTest.SETTINGS)) {
            assertEquals(List.of(258, 256), Arrays.stream(tokenizer.endTokens()).boxed().toList(), "the tiny Qwen3's end tokens");
            var policy = new TinkerPolicy(client, RealTinker.baseModel(), tokenizer, 64);
            var request = new CompletionRequest(PROMPT, 24, 1.0, 1.0, 5L, List.of(), null);

            Completion base = policy.complete(request);
            assertEquals(0, base.policyVersion());
            readByTheRules(base, tokenizer, 24, Completion.FinishReason.LENGTH);
            sameAsReference(base, null, "the base model");

            learner.rl(TinkerBatchTest.batch());
            Path v1 = tmp.resolve("v1");
            learner.checkpoint(v1, "hf", 1, 1);
            policy.publish(1, TinkerState.read(v1).orElseThrow().sampler());
            policy.publish(0, null); // an older announcement read again (a replica reading the topic from its start)
            assertEquals(1, policy.weights().version());
            Completion trained = policy.complete(request);
            assertEquals(1, trained.policyVersion());
            sameAsReference(trained, v1, "v1's adapter");

            // five tokens of room left in a 64-token context: no more than five are drawn
            int[] longPrompt = IntStream.range(0, 59).map(i -> 97 + i % 26).toArray();
            Completion capped = policy.complete(new CompletionRequest(longPrompt, 24, 1.0, 1.0, 5L, List.of(), null));
            readByTheRules(capped, tokenizer, 5, Completion.FinishReason.CONTEXT);
            Completion full = policy.complete(new CompletionRequest(IntStream.range(0, 64).map(i -> 97).toArray(), 24, 1.0, 1.0, 5L, List.of(), null));
            assertEquals(Completion.FinishReason.CONTEXT, full.finish());
            assertEquals(0, full.tokens().length);
            var e = assertThrows(PolicyException.class, () -> policy.complete(new CompletionRequest(PROMPT, 4, 1.0, 1.0, 5L, List.of(), 0L)));
            assertTrue(e.getMessage().contains("policy version 0 is not the one sampled (v1)"), e.getMessage());
        }
    }

    /** Ended by an end token (kept, left out of the text), or else at {@code most} tokens for {@code otherwise}. */
    private static void readByTheRules(Completion c, HuggingFaceTokenizer tokenizer, int most, Completion.FinishReason otherwise) {
        int[] t = c.tokens();
        assertTrue(t.length >= 1 && t.length <= most, "1 to " + most + " tokens: " + t.length);
        boolean ended = t[t.length - 1] == 258 || t[t.length - 1] == 256;
        if (ended) {
            assertEquals(Completion.FinishReason.STOP, c.finish());
            assertEquals(tokenizer.decode(Arrays.copyOf(t, t.length - 1)), c.text());
        } else {
            assertEquals(otherwise, c.finish());
            assertEquals(most, t.length);
            assertEquals(tokenizer.decode(t), c.text());
        }
        for (int i = 0; i < t.length - 1; i++) {
            assertTrue(t[i] != 258 && t[i] != 256, "an end token ends the completion: " + Arrays.toString(t));
        }
    }

    /** The completion's log-probabilities (temperature 1, the whole distribution) are the model's own, by transformers (and PEFT). */
    private static void sameAsReference(Completion c, Path adapter, String what) {
        int[] all = IntStream.concat(Arrays.stream(PROMPT), Arrays.stream(c.tokens())).toArray();
        String ids = Arrays.stream(all).mapToObj(Integer::toString).collect(Collectors.joining(","));
        var args = adapter == null ? new String[] {"logprobs", "--model", RealTinker.baseModel(), "--tokens", ids}
                : new String[] {"logprobs", "--model", RealTinker.baseModel(), "--adapter", adapter.toString(), "--tokens", ids};
        double[] ref = PythonReference.doubles(PythonReference.reference(args).get("logprobs"));
        for (int i = 0; i < c.tokens().length; i++) {
            assertEquals(ref[PROMPT.length - 1 + i], c.logprobs()[i], 1e-4, what + ", completion token " + (i + 1));
        }
    }
}
