package ai.openalice.rl.events;

/** The payload of an event on one of the {@link Topic}s; {@link #key()} is its Kafka record key. */
public sealed interface EventPayload
        permits TaskSubmitted, TaskAccepted, TaskRejected, RolloutEvent, CheckpointPublished, TrainingMetrics {

    /** Kafka record key: taskId for task topics (taskId:version on the compacted tasks.accepted), groupId for rollout topics (a group stays on one partition). */
    String key();

    default Topic topic() {
        return Topic.of(getClass());
    }
}
