package ai.openalice.rl.events;

import com.fasterxml.jackson.annotation.JsonSubTypes;
import com.fasterxml.jackson.annotation.JsonTypeInfo;

/** A trajectory inline when small, or a reference to it in the artifact store when large. */
@JsonTypeInfo(use = JsonTypeInfo.Id.NAME, property = "kind")
@JsonSubTypes({
    @JsonSubTypes.Type(value = TrajectoryRef.Inline.class, name = "inline"),
    @JsonSubTypes.Type(value = TrajectoryRef.Stored.class, name = "artifact")
})
public sealed interface TrajectoryRef {

    /** The trajectory itself. */
    record Inline(Trajectory trajectory) implements TrajectoryRef {}

    /** The trajectory's JSON in the artifact store. */
    record Stored(ArtifactRef artifact) implements TrajectoryRef {}
}
