package ai.openalice.rl.events;

import com.fasterxml.jackson.databind.node.ObjectNode;

/**
 * A task published for training or evaluation. The task is kept as raw JSON so that the
 * dispatcher can validate it field by field ({@code TaskParser}) and keep unknown fields.
 */
public record TaskSubmitted(String source, ObjectNode task, boolean newVersion, Integer priority) implements EventPayload {

    /** The task's {@code instance_id}, or the source when the task has none (it will be rejected). */
    @Override
    public String key() {
        var id = task == null ? null : task.get("instance_id");
        return id != null && id.isTextual() && !id.asText().isEmpty() ? id.asText() : source;
    }
}
