package ai.openalice.rl.events;

import java.util.Map;

/**
 * The run profile: the configuration measured to learn (docs/experiments.md: 100 RL steps from the
 * bundled warm start took held-out pass@1 from 0.121 to 0.309 on the built-in model), stated once.
 * Every service's {@code @WithDefault} for these keys is one of these constants, {@code alice-rl
 * train}'s options default to them, and Helm and compose set none of these keys, so that a cluster
 * runs what was measured unless an operator says otherwise (a test holds the chart and compose to it).
 */
public final class RunProfile {
    private RunProfile() {}

    /** Members of a GRPO group. */
    public static final String GROUP_SIZE = "8";
    /** Groups per training step. */
    public static final String BATCH_GROUPS = "1";
    /** Rollouts in flight: two batches while the trainer works on a third (G × batch × 2). */
    public static final String MAX_IN_FLIGHT = "16";
    /** Useful groups the trainer consumes per policy version (batch groups × checkpoint every 1). */
    public static final String GROUPS_PER_VERSION = "1";
    /** AdamW's learning rate of RL. */
    public static final String LR = "2e-4";
    /**
     * Rows per forward/backward pass (gradients accumulated: the same step). 1 rather than 2 halves
     * the trainer's peak memory at context 4,096 (bench trainer 1 4096: 5.5 against 10.0 GB
     * resident) for 3.5% more time per step (7.45 against 7.20 s).
     */
    public static final String MICRO_BATCH = "1";
    /** Sampling temperature of the rollouts, and the temperature the trainer computes log-probs at. */
    public static final String TEMPERATURE = "0.7";
    /** Completion tokens per turn. */
    public static final String MAX_TOKENS_PER_TURN = "256";
    /** Compact filtering (mask truncated episodes): off, so that failures that ran out of turns are trained on too. */
    public static final String COMPACT_FILTER = "false";
    /** Only a submitted fix is rewarded as one. */
    public static final String SUBMIT_REQUIRED = "true";
    /** Each episode pushes by its advantage alone, whatever its length. */
    public static final String LOSS_AGGREGATION = "seq-mean-token-mean";
    /**
     * A group must hold both a solved and an unsolved member to be trained on (DAPO's accuracy filter): a
     * group that only the rubric tells apart moved the built-in model off what it had learnt (a warm start
     * that solved a task 4 times in 4 solved it 0 times after 12 such steps at 5e-4).
     */
    public static final String DYNAMIC_SAMPLING = "outcome";
    /** How long a group waits for its last members before it is trained with what it has. */
    public static final String GROUP_DEADLINE = "PT15M";
    /** Policy versions a group may be behind before it is dropped. */
    public static final String MAX_STALENESS = "4";
    /** Context of the built-in model and of an episode, in tokens (bytes for the built-in model). */
    public static final String CONTEXT_LENGTH = "4096";
    /** The built-in model's shape (about 1 M parameters). */
    public static final String MODEL_LAYERS = "2";
    public static final String MODEL_HEADS = "4";
    public static final String MODEL_WIDTH = "128";
    /** The runner's system prompt: the tools named only (the built-in model learns the format by imitation). */
    public static final String SYSTEM_PROMPT = "brief";

    /** Every key of the profile and its value, as the services read them. */
    public static Map<String, String> settings() {
        return Map.ofEntries(
                Map.entry("dispatcher.group-size", GROUP_SIZE), Map.entry("dispatcher.max-in-flight", MAX_IN_FLIGHT),
                Map.entry("dispatcher.pace.groups-per-version", GROUPS_PER_VERSION), Map.entry("dispatcher.compact-filter", COMPACT_FILTER),
                Map.entry("dispatcher.sampling.temperature", TEMPERATURE), Map.entry("dispatcher.sampling.max-tokens-per-turn", MAX_TOKENS_PER_TURN),
                Map.entry("dispatcher.max-staleness", MAX_STALENESS),
                Map.entry("trainer.batch-groups", BATCH_GROUPS), Map.entry("trainer.optim.lr", LR), Map.entry("trainer.optim.micro-batch", MICRO_BATCH),
                Map.entry("trainer.loss.temperature", TEMPERATURE), Map.entry("trainer.loss.compact-filter", COMPACT_FILTER),
                Map.entry("trainer.loss.aggregation", LOSS_AGGREGATION), Map.entry("trainer.dynamic-sampling", DYNAMIC_SAMPLING),
                Map.entry("trainer.group-deadline", GROUP_DEADLINE), Map.entry("trainer.max-staleness", MAX_STALENESS),
                Map.entry("trainer.model.context-length", CONTEXT_LENGTH), Map.entry("trainer.model.layers", MODEL_LAYERS),
                Map.entry("trainer.model.heads", MODEL_HEADS), Map.entry("trainer.model.width", MODEL_WIDTH),
                Map.entry("rubric.submit-required", SUBMIT_REQUIRED),
                Map.entry("runner.max-context-tokens", CONTEXT_LENGTH), Map.entry("runner.system-prompt", SYSTEM_PROMPT));
    }
}
