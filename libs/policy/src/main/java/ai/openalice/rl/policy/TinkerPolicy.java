package ai.openalice.rl.policy;

import ai.openalice.rl.model.tokenizer.Tokenizer;
import ai.openalice.rl.tinker.Sample;
import ai.openalice.rl.tinker.SamplingParams;
import ai.openalice.rl.tinker.TinkerClient;
import ai.openalice.rl.tinker.TinkerRejectedException;
import ai.openalice.rl.tinker.TinkerUnavailableException;
import java.util.Arrays;
import java.util.concurrent.atomic.AtomicReference;

/**
 * The policy sampled on the Tinker engine that trains it ({@code asample}): the base model until the
 * trainer publishes a checkpoint, then the sampler weights each checkpoint names
 * ({@code checkpoints.published}'s {@code sampler}), so no weights travel to a serving engine and
 * the sampler is the learner's own model. The engine samples the whole completion; the tokens it
 * returns are then read by the same rules as every other policy's ({@link Generation}: an end token
 * kept in the completion, stop strings, max tokens, the context), and the completion is labelled
 * with the version whose weights drew it.
 */
public final class TinkerPolicy implements Policy {
    /** Weights to sample at: a policy version and its tinker:// sampler path (null: the base model, version 0). */
    public record Weights(long version, String samplerPath) {}

    private final TinkerClient client;
    private final String baseModel;
    private final Tokenizer tokenizer;
    private final int contextLength;
    private final AtomicReference<Weights> current = new AtomicReference<>(new Weights(0, null));

    /** {@code contextLength}: the most tokens prompt and completion may hold together. */
    public TinkerPolicy(TinkerClient client, String baseModel, Tokenizer tokenizer, int contextLength) {
        if (tokenizer.endTokens().length == 0) {
            throw new IllegalArgumentException("the tokenizer names no end token: the engine would sample to max_tokens every time");
        }
        this.client = client;
        this.baseModel = baseModel;
        this.tokenizer = tokenizer;
        this.contextLength = contextLength;
    }

    /** Samples at {@code version}'s weights from now on; an older version than the current one is ignored (a replayed announcement). */
    public void publish(long version, String samplerPath) {
        current.accumulateAndGet(new Weights(version, samplerPath), (now, next) -> next.version() >= now.version() ? next : now);
    }

    public Weights weights() {
        return current.get();
    }

    @Override
    public String name() {
        return "tinker " + baseModel + " v" + current.get().version();
    }

    @Override
    public Completion complete(CompletionRequest request) {
        Weights w = current.get();
        if (request.policyVersion() != null && request.policyVersion() != w.version()) {
            throw new PolicyException("policy version " + request.policyVersion() + " is not the one sampled (v" + w.version() + ")");
        }
        int room = contextLength - request.prompt().length;
        if (room <= 0) {
            return new Completion(new int[0], new double[0], "", Completion.FinishReason.CONTEXT, w.version());
        }
        Sample s = sample(w, request, Math.min(request.maxTokens(), room));
        var gen = new Generation(request, tokenizer, contextLength);
        int[] tokens = s.tokens();
        for (int i = 0; i < tokens.length && gen.accept(tokens[i], s.logprobs()[i]) >= 0; i++) {
            // each token read by the rules until one ends the completion
        }
        if (!gen.done()) {
            // the engine stopped short of every rule: its max_tokens (which is ours) — or nothing at all
            gen.end(Completion.FinishReason.LENGTH);
        }
        return gen.result(w.version());
    }

    private Sample sample(Weights w, CompletionRequest request, int maxTokens) {
        // SkyRL makes a 32-bit PRNG key of the seed: 31 bits of ours are sent
        Long seed = request.seed() == null ? null : request.seed() & 0x7fffffffL;
        var params = new SamplingParams(maxTokens, request.temperature(), request.topP(), seed,
                Arrays.stream(tokenizer.endTokens()).boxed().toList());
        try {
            var samples = w.samplerPath() == null ? client.sampleBase(baseModel, request.prompt(), 1, params)
                    : client.sample(w.samplerPath(), request.prompt(), 1, params);
            if (samples.size() != 1) {
                throw new PolicyException("the Tinker engine answered " + samples.size() + " samples for one");
            }
            return samples.getFirst();
        } catch (TinkerRejectedException e) {
            throw new PolicyException("the Tinker engine refused to sample v" + w.version() + ": " + e.getMessage(), e);
        } catch (TinkerUnavailableException e) {
            throw new PolicyException(e.getMessage(), e);
        }
    }
}
