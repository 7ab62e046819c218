package ai.openalice.rl.events;

import java.util.Map;

/** A new policy checkpoint (ONNX graph + manifest, and the trainer's resume state) in the artifact store. */
public record CheckpointPublished(
        long policyVersion, long step, ArtifactRef onnx, ArtifactRef manifest, ArtifactRef resumeState, Map<String, Double> metrics)
        implements EventPayload {

    /** One partition keeps the versions in order. */
    public static final String KEY = "policy";

    public CheckpointPublished {
        metrics = metrics == null ? Map.of() : Map.copyOf(metrics);
    }

    @Override
    public String key() {
        return KEY;
    }
}
