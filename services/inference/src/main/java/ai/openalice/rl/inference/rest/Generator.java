package ai.openalice.rl.inference.rest;

import ai.openalice.rl.inference.service.BatchScheduler;
import ai.openalice.rl.inference.service.LoadedModel;
import ai.openalice.rl.inference.service.ModelRegistry;
import ai.openalice.rl.model.tokenizer.Tokenizer;
import ai.openalice.rl.policy.Completion;
import ai.openalice.rl.policy.CompletionRequest;
import com.fasterxml.jackson.databind.JsonNode;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Function;

/**
 * Runs the {@code n} samples of one request, shared by the completions and the chat completions
 * endpoints: pins a loaded policy version for each sample, queues it, and waits for all. Every
 * failure is a {@link ProblemException} naming its cause (a bad request 400, an unknown version
 * 404, a full queue or no model 503, a timeout 504).
 */
@ApplicationScoped
public class Generator {
    static final int MAX_N = 16;

    @Inject
    ModelRegistry registry;

    @Inject
    BatchScheduler scheduler;

    /** How to sample, as the request said. */
    public record Sampling(Integer maxTokens, Double temperature, Double topP, JsonNode stop, Long seed, Integer n, Long policyVersion) {}

    /** The samples, the version that produced them, the prompt's length and the tokenizer that decodes them. */
    public record Result(List<Completion> completions, long version, int promptTokens, Tokenizer tokenizer) {
        public int completionTokens() {
            return completions.stream().mapToInt(c -> c.tokens().length).sum();
        }
    }

    /** What a streamed request hears, sample by sample: tokens as they are sampled, then the completion or the failure. */
    public sealed interface Event {
        int index();

        record Tokens(int index, int[] tokens, double[] logprobs) implements Event {}

        record Done(int index, Completion completion) implements Event {}

        record Failed(int index, Throwable cause) implements Event {}
    }

    /** A request being sampled: the version, the prompt's length, the tokenizer, its stop strings and its events as they come. */
    public record Streaming(long version, int promptTokens, Tokenizer tokenizer, List<String> stop, int n, BlockingQueue<Event> events) {
        /** The next event; a 504 when none comes in 10 minutes. */
        public Event next() {
            try {
                Event e = events.poll(10, TimeUnit.MINUTES);
                if (e == null) {
                    throw new ProblemException(504, "Timeout", "the generation did not finish in 10 minutes");
                }
                return e;
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new ProblemException(503, "Interrupted", "the service is shutting down");
            }
        }
    }

    /** Samples {@code n} completions of the prompt {@code promptOf} builds for the pinned model. */
    public Result generate(Function<LoadedModel, int[]> promptOf, Sampling s) {
        var started = start(promptOf, s, null);
        var completions = new ArrayList<Completion>();
        for (var f : started.futures()) {
            completions.add(await(f));
        }
        return new Result(completions, completions.getLast().policyVersion(), started.promptTokens(), started.tokenizer());
    }

    /**
     * The same, streamed: the samples are queued as {@link #generate} queues them, and each token is an
     * event as soon as the batch loop samples it. A request that cannot be queued fails here, before
     * anything is streamed (a clear 4xx or 503 rather than a broken stream).
     */
    public Streaming stream(Function<LoadedModel, int[]> promptOf, Sampling s) {
        var events = new LinkedBlockingQueue<Event>();
        var started = start(promptOf, s, events);
        for (int i = 0; i < started.futures().size(); i++) {
            int index = i;
            started.futures().get(i).whenComplete((c, e) -> events.add(e == null ? new Event.Done(index, c) : new Event.Failed(index, e)));
        }
        return new Streaming(started.version(), started.promptTokens(), started.tokenizer(), stops(s.stop()), started.futures().size(), events);
    }

    private record Started(List<CompletableFuture<Completion>> futures, long version, int promptTokens, Tokenizer tokenizer) {}

    private Started start(Function<LoadedModel, int[]> promptOf, Sampling s, BlockingQueue<Event> events) {
        int n = s.n() == null ? 1 : s.n();
        if (n < 1 || n > MAX_N) {
            throw ProblemException.badRequest("n must be in 1.." + MAX_N + ", got " + n);
        }
        LoadedModel model = acquire(s.policyVersion());
        var futures = new ArrayList<CompletableFuture<Completion>>();
        int acquired = 1;
        int[] prompt;
        Tokenizer tokenizer = model.tokenizer();
        try {
            prompt = promptOf.apply(model);
            for (int i = 0; i < n; i++) {
                if (i > 0) {
                    model = acquire(s.policyVersion() == null ? model.version() : s.policyVersion());
                    acquired++;
                }
                int index = i;
                var f = scheduler.submit(request(s, prompt, i, model.version()), model,
                        events == null ? BatchScheduler.Progress.NONE : (tokens, logprobs) -> events.add(new Event.Tokens(index, tokens, logprobs)));
                if (f.isEmpty()) {
                    throw new ProblemException(503, "Busy", "the request queue is full; retry later");
                }
                futures.add(f.get());
                acquired--;
            }
        } catch (IllegalArgumentException e) {
            throw ProblemException.badRequest(e.getMessage());
        } finally {
            for (int i = 0; i < acquired; i++) {
                registry.release(model);
            }
        }
        return new Started(futures, model.version(), prompt.length, tokenizer);
    }

    private LoadedModel acquire(Long pin) {
        return registry.acquire(pin).orElseThrow(() -> pin == null
                ? new ProblemException(503, "No model", "no policy version is loaded yet")
                : new ProblemException(404, "Unknown version", "policy version " + pin + " is not loaded; loaded: " + registry.versions()));
    }

    private static List<String> stops(JsonNode stop) {
        List<String> out = new ArrayList<>();
        if (stop != null && !stop.isNull()) {
            if (stop.isTextual()) {
                out.add(stop.asText());
            } else if (stop.isArray()) {
                stop.forEach(x -> out.add(x.asText()));
            } else {
                throw new IllegalArgumentException("stop must be a string or an array of strings");
            }
        }
        return out;
    }

    private static CompletionRequest request(Sampling s, int[] prompt, int i, long version) {
        List<String> stop = stops(s.stop());
        Long seed = s.seed() == null ? null : s.seed() + i;
        return new CompletionRequest(prompt, s.maxTokens() == null ? 16 : s.maxTokens(), s.temperature() == null ? 1.0 : s.temperature(),
                s.topP() == null ? 1.0 : s.topP(), seed, stop, version);
    }

    private static Completion await(CompletableFuture<Completion> f) {
        try {
            return f.get(10, TimeUnit.MINUTES);
        } catch (ExecutionException e) {
            throw new ProblemException(500, "Generation failed", e.getCause().getMessage());
        } catch (TimeoutException e) {
            throw new ProblemException(504, "Timeout", "the generation did not finish in 10 minutes");
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new ProblemException(503, "Interrupted", "the service is shutting down");
        }
    }

    /** OpenAI's name for why a completion ended. */
    static String finishReason(Completion c) {
        return switch (c.finish()) {
            case STOP -> "stop";
            case LENGTH, CONTEXT -> "length";
        };
    }
}
