package ai.openalice.rl.events;

import ai.openalice.rl.events.task.FieldError;
import java.util.List;

/** A task that failed validation: every reason, and the payload exactly as it was received. */
public record TaskRejected(String source, String taskId, List<FieldError> reasons, String originalPayload, Origin origin)
        implements EventPayload {

    public TaskRejected {
        reasons = List.copyOf(reasons);
        if (reasons.isEmpty()) {
            throw new IllegalArgumentException("a rejection needs at least one reason");
        }
    }

    /** Where the rejected payload came from: a Kafka record, a REST request or a line of a file. */
    public record Origin(String channel, String topic, Integer partition, Long offset, Integer line) {
        public static Origin kafka(String topic, int partition, long offset) {
            return new Origin("kafka", topic, partition, offset, null);
        }

        public static Origin rest() {
            return new Origin("rest", null, null, null, null);
        }

        public static Origin file(int line) {
            return new Origin("file", null, null, null, line);
        }
    }

    @Override
    public String key() {
        return taskId != null ? taskId : source;
    }
}
