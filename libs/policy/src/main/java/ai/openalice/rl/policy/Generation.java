package ai.openalice.rl.policy;

import ai.openalice.rl.model.Sampler;
import ai.openalice.rl.model.tokenizer.Tokenizer;
import java.util.Arrays;

/**
 * One completion in progress: its sampler, what it has generated so far, and whether it is done
 * (max tokens, one of the tokenizer's end tokens — kept in the completion —, a stop
 * string, the context). Shared by the in-process policy and the inference service's batch loop.
 */
public final class Generation {
    final CompletionRequest request;
    final Sampler sampler;
    final Tokenizer tokenizer;
    final int contextLength;
    final int[] ends;
    int[] tokens = new int[0];
    double[] logprobs = new double[0];
    Completion.FinishReason finish;
    String text = "";

    public Generation(CompletionRequest request, Tokenizer tokenizer, int contextLength) {
        this.request = request;
        this.tokenizer = tokenizer;
        this.contextLength = contextLength;
        this.sampler = new Sampler(request.temperature(), request.topP(), request.seed() == null ? System.nanoTime() : request.seed());
        this.ends = tokenizer.endTokens();
    }

    /** Chooses the next token from logits; returns it, or -1 when the generation ended (nothing to feed). */
    public int accept(float[] logits) {
        Sampler.Choice c = sampler.next(logits);
        return accept(c.token(), c.logprob());
    }

    /**
     * Takes a token chosen elsewhere (an engine that samples on its own, such as a Tinker sampler)
     * with its log-probability, by the same rules; returns it, or -1 when the generation ended.
     */
    public int accept(int token, double logprob) {
        tokens = Arrays.copyOf(tokens, tokens.length + 1);
        tokens[tokens.length - 1] = token;
        logprobs = Arrays.copyOf(logprobs, logprobs.length + 1);
        logprobs[logprobs.length - 1] = logprob;
        if (isEnd(token)) {
            // The terminating token is part of the completion: the trainer must learn to emit it.
            finish = Completion.FinishReason.STOP;
            return -1;
        }
        if (!request.stop().isEmpty()) {
            text = tokenizer.decode(tokens);
            for (String stop : request.stop()) {
                int at = text.indexOf(stop);
                if (at >= 0) {
                    trimTo(at);
                    finish = Completion.FinishReason.STOP;
                    return -1;
                }
            }
        }
        if (tokens.length >= request.maxTokens()) {
            finish = Completion.FinishReason.LENGTH;
            return -1;
        }
        if (request.prompt().length + tokens.length >= contextLength) {
            finish = Completion.FinishReason.CONTEXT;
            return -1;
        }
        return token;
    }

    private boolean isEnd(int token) {
        for (int e : ends) {
            if (e == token) {
                return true;
            }
        }
        return false;
    }

    /** Keeps the shortest token prefix whose text reaches {@code chars} characters of the completion. */
    private void trimTo(int chars) {
        for (int n = 0; n <= tokens.length; n++) {
            String t = tokenizer.decode(Arrays.copyOf(tokens, n));
            if (t.length() >= chars) {
                tokens = Arrays.copyOf(tokens, n);
                logprobs = Arrays.copyOf(logprobs, n);
                text = t.substring(0, chars);
                return;
            }
        }
    }

    /** The tokens chosen so far (after a stop string, those up to it). */
    public int[] tokens() {
        return tokens;
    }

    /** Ends a generation its tokens did not end (an engine that sampled on its own stopped): {@code reason} says why. */
    public void end(Completion.FinishReason reason) {
        if (finish == null) {
            finish = reason;
        }
    }

    /** The log-probabilities of {@link #tokens()}. */
    public double[] logprobs() {
        return logprobs;
    }

    public boolean done() {
        return finish != null;
    }

    public Completion result(long policyVersion) {
        boolean terminated = tokens.length > 0 && isEnd(tokens[tokens.length - 1]);
        String t = terminated ? tokenizer.decode(Arrays.copyOf(tokens, tokens.length - 1))
                : request.stop().isEmpty() || finish != Completion.FinishReason.STOP ? tokenizer.decode(tokens) : text;
        return new Completion(tokens, logprobs, t, finish, policyVersion);
    }
}
