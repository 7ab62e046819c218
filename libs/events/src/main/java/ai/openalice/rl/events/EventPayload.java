package ai.openalice.rl.events;

/** The payload of an event on one of the {@link Topic}s; {@link #key()} is its Kafka record key. */
public sealed interface EventPayload
        permits TaskSubmitted, TaskRejected, RolloutEvent, CheckpointPublished, TrainingMetrics {

    /** Kafka record key: taskId for task topics, groupId for rollout topics (a group stays on one partition). */
    String key();

    default Topic topic() {
        return Topic.of(getClass());
    }
}
