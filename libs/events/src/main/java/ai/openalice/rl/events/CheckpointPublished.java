package ai.openalice.rl.events;

import com.fasterxml.jackson.annotation.JsonCreator;
import java.util.Map;

/**
 * A new policy checkpoint (ONNX graph + manifest, and the trainer's resume state) in the artifact
 * store, and the {@link Terms} the trainer trains under, for the services that must follow them.
 * {@code onnx} is null for a HuggingFace model's checkpoint written for an external serving engine
 * ({@code trainer.export-onnx=false}): the manifest's folder holds the weights or the adapter.
 * {@code sampler} names the same weights on the Tinker engine that trained them (a {@code tinker://}
 * path of {@code save_weights_for_sampler}), for runners that sample there ({@code runner.policy=tinker});
 * null for the built-in learner's checkpoints.
 */
public record CheckpointPublished(
        long policyVersion, long step, ArtifactRef onnx, ArtifactRef manifest, ArtifactRef resumeState, Map<String, Double> metrics,
        @Added("trainer terms") Terms terms, @Added("tinker sampler") String sampler)
        implements EventPayload {

    /** One partition keeps the versions in order. */
    public static final String KEY = "policy";

    @JsonCreator
    public CheckpointPublished {
        metrics = metrics == null ? Map.of() : Map.copyOf(metrics);
    }

    /** A checkpoint without sampler weights on a Tinker engine (the built-in learner's, or a producer that predates them). */
    public CheckpointPublished(long policyVersion, long step, ArtifactRef onnx, ArtifactRef manifest, ArtifactRef resumeState, Map<String, Double> metrics,
            Terms terms) {
        this(policyVersion, step, onnx, manifest, resumeState, metrics, terms, null);
    }

    /** A checkpoint that states no terms (a producer that predates them: the followers keep their own settings). */
    public CheckpointPublished(long policyVersion, long step, ArtifactRef onnx, ArtifactRef manifest, ArtifactRef resumeState, Map<String, Double> metrics) {
        this(policyVersion, step, onnx, manifest, resumeState, metrics, null, null);
    }

    @Override
    public String key() {
        return KEY;
    }

    /**
     * What the trainer's loss and screening assume of the rollouts, decided once by the trainer: the
     * dispatcher samples at {@code temperature} (null: the trainer has no say, e.g. imitation, which
     * fits at temperature 1 whatever the sampling), lets the runner use at most
     * {@code contextLength} tokens, counts truncated members out of the curriculum as the compact
     * filter does, drops groups more than {@code maxStaleness} versions behind, and paces
     * {@code groupsPerVersion} training groups per policy version.
     */
    public record Terms(Double temperature, boolean compactFilter, int maxStaleness, int groupsPerVersion, int contextLength) {
        public Terms {
            if (temperature != null && !(temperature > 0) || maxStaleness < 0 || groupsPerVersion < 0 || contextLength < 1) {
                throw new IllegalArgumentException("trainer terms out of range: temperature " + temperature + ", maxStaleness " + maxStaleness
                        + ", groupsPerVersion " + groupsPerVersion + ", contextLength " + contextLength);
            }
        }
    }
}
