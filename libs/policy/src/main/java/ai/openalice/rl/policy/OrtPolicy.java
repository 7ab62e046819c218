package ai.openalice.rl.policy;

import ai.openalice.rl.model.checkpoint.Checkpoint;
import ai.openalice.rl.model.checkpoint.Manifest;
import ai.openalice.rl.model.tokenizer.Tokenizer;
import java.nio.file.Path;
import java.util.List;

/** The policy in-process: a checkpoint's ONNX graph (the built-in GPT or a HuggingFace family) on ONNX Runtime, one sequence at a time, with the KV cache. */
public final class OrtPolicy implements Policy {
    private final OrtDecoder decoder;
    private final Tokenizer tokenizer;
    private final long version;

    public OrtPolicy(Path checkpointDir) {
        Manifest m = Checkpoint.verify(checkpointDir);
        this.tokenizer = Checkpoint.tokenizer(checkpointDir, m);
        this.decoder = new OrtDecoder(checkpointDir.resolve(Checkpoint.ONNX), m.cache(), 1, false, OrtDecoder.DEFAULT_PREFIX_CACHE_BYTES);
        this.version = m.policyVersion();
    }

    @Override
    public String name() {
        return "onnx-in-process v" + version;
    }

    public Tokenizer tokenizer() {
        return tokenizer;
    }

    @Override
    public Completion complete(CompletionRequest request) {
        if (request.policyVersion() != null && request.policyVersion() != version) {
            throw new PolicyException("policy version " + request.policyVersion() + " is not loaded (this is v" + version + ")");
        }
        int context = decoder.config().contextLength();
        if (request.prompt().length >= context) {
            return new Completion(new int[0], new double[0], "", Completion.FinishReason.CONTEXT, version);
        }
        var gen = new Generation(request, tokenizer, context);
        var seq = new KvSequence[1];
        float[] logits = decoder.prefill(request.prompt(), seq);
        int next = gen.accept(logits);
        if (next >= 0) {
            // One-member batch: the cache stays in ONNX Runtime between steps, and comes back out
            // at the end for the prefix cache (the next turn's prompt starts with this one's).
            var batch = decoder.batch(List.of(seq[0]));
            try {
                while (next >= 0) {
                    next = gen.accept(batch.step(new int[] {next})[0]);
                }
            } catch (RuntimeException e) {
                batch.close();
                throw e;
            }
            batch.release();
        }
        decoder.remember(request.prompt(), gen.tokens(), seq[0]);
        return gen.result(version);
    }

    /** The prompt tokens this policy took from its prefix cache, and those it computed. */
    public long[] promptTokens() {
        return new long[] {decoder.prefixCache().reusedTokens(), decoder.prefixCache().computedTokens()};
    }

    @Override
    public void close() {
        decoder.close();
        if (tokenizer instanceof AutoCloseable native_) { // a HuggingFace tokenizer holds native memory
            try {
                native_.close();
            } catch (Exception e) {
                throw new PolicyException("closing the tokenizer: " + e.getMessage(), e);
            }
        }
    }
}
