package ai.openalice.rl.events;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.Optional;

/**
 * Readers of the rollout topics' version 1, kept for one release after v2 (the {@link RolloutRef}
 * header). A v1 {@code rollouts.requested} holds the whole header, flat, and is lifted into it.
 * The later v1 events never carried the header's mode, member index and sampling (nor, for a
 * verdict, the episode): they cannot become v2 events, so they are refused with that reason — the
 * dead-letter topic keeps them, and the dispatcher re-requests the rollout when its deadline
 * passes, as for any lost event. Never a guess at the missing fields.
 */
final class V1Rollouts {
    private static final String[] HEADER = {"taskId", "groupId", "rolloutId", "memberIndex", "attempt", "groupSize", "policyVersion", "mode",
            "evalRunId", "sampling"};

    private V1Rollouts() {}

    /** The v2 payload of a v1 event of {@code topic}, or why there is none. */
    static Result upgrade(Topic topic, ObjectNode payload) {
        if (topic != Topic.ROLLOUTS_REQUESTED) {
            return new Result(Optional.empty(), "schemaVersion 1 of " + topic.topicName()
                    + " lacks the rollout header's mode, member index and sampling" + (topic == Topic.VERIFICATIONS_COMPLETED ? " and the episode" : "")
                    + ", which version 2 carries; the dispatcher re-requests the rollout at its deadline");
        }
        ObjectNode ref = payload.objectNode();
        for (String field : HEADER) {
            JsonNode value = payload.remove(field);
            if (value != null) {
                ref.set(field, value);
            }
        }
        JsonNode task = payload.path("task");
        ref.set("taskVersion", task.get("taskVersion"));
        ref.set("contentHash", task.hasNonNull("contentHash") ? task.get("contentHash") : ref.nullNode());
        if (!ref.has("evalRunId")) {
            ref.putNull("evalRunId");
        }
        payload.set("ref", ref);
        return new Result(Optional.of(payload), null);
    }

    /** The upgraded payload, or the reason it cannot be. */
    record Result(Optional<ObjectNode> payload, String refused) {}
}
