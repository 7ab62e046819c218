package ai.openalice.rl.events;

import java.time.Duration;
import java.util.Arrays;
import java.util.Optional;

/** The Kafka topics of alice-rl: name, payload record, current schema version, partitions and retention (or compaction). */
public enum Topic {
    TASKS_SUBMITTED("tasks.submitted", TaskSubmitted.class, 1, 3, Duration.ofDays(7)),
    /** Compacted: the latest event per key (taskId:version) is kept for ever, so a replica can be rebuilt from it. */
    TASKS_ACCEPTED("tasks.accepted", TaskAccepted.class, 1, 3, null),
    TASKS_REJECTED("tasks.rejected", TaskRejected.class, 1, 1, Duration.ofDays(30)),
    /** v2: the {@link RolloutRef} header; v1 is still read (see {@link V1Rollouts}). */
    ROLLOUTS_REQUESTED("rollouts.requested", RolloutRequested.class, 2, 6, Duration.ofDays(7)),
    ROLLOUTS_COMPLETED("rollouts.completed", RolloutCompleted.class, 2, 6, Duration.ofDays(7)),
    VERIFICATIONS_COMPLETED("verifications.completed", VerificationCompleted.class, 2, 6, Duration.ofDays(7)),
    REWARDS_SCORED("rewards.scored", RewardScored.class, 2, 6, Duration.ofDays(7)),
    CHECKPOINTS_PUBLISHED("checkpoints.published", CheckpointPublished.class, 1, 1, Duration.ofDays(30)),
    TRAINING_METRICS("training.metrics", TrainingMetrics.class, 1, 1, Duration.ofDays(30));

    /** Topic names as compile-time constants, for {@code @Incoming}/{@code @Channel} annotations. */
    public static final class Names {
        public static final String TASKS_SUBMITTED = "tasks.submitted";
        public static final String TASKS_ACCEPTED = "tasks.accepted";
        public static final String TASKS_REJECTED = "tasks.rejected";
        public static final String ROLLOUTS_REQUESTED = "rollouts.requested";
        public static final String ROLLOUTS_COMPLETED = "rollouts.completed";
        public static final String VERIFICATIONS_COMPLETED = "verifications.completed";
        public static final String REWARDS_SCORED = "rewards.scored";
        public static final String CHECKPOINTS_PUBLISHED = "checkpoints.published";
        public static final String TRAINING_METRICS = "training.metrics";

        private Names() {}
    }

    private final String topicName;
    private final Class<? extends EventPayload> payloadType;
    private final int schemaVersion;
    private final int partitions;
    private final Duration retention;

    Topic(String topicName, Class<? extends EventPayload> payloadType, int schemaVersion, int partitions, Duration retention) {
        this.topicName = topicName;
        this.payloadType = payloadType;
        this.schemaVersion = schemaVersion;
        this.partitions = partitions;
        this.retention = retention;
    }

    public String topicName() { return topicName; }

    public Class<? extends EventPayload> payloadType() { return payloadType; }

    /** The schema version this code writes; bump together with a new {@code schemas/<topic>.v<N>.json}. */
    public int schemaVersion() { return schemaVersion; }

    public int partitions() { return partitions; }

    /** How long records are kept; empty for a compacted topic (the latest record per key is kept for ever). */
    public Optional<Duration> retention() { return Optional.ofNullable(retention); }

    /** Whether the topic is compacted ({@code cleanup.policy=compact}) rather than deleted by age. */
    public boolean compacted() { return retention == null; }

    /** File name of the JSON Schema under {@code schemas/} of what this code writes. */
    public String schemaFile() { return schemaFile(schemaVersion); }

    /** File name of the JSON Schema of version {@code version} of this topic. */
    public String schemaFile(int version) { return topicName + ".v" + version + ".json"; }

    public static Optional<Topic> byName(String name) {
        return Arrays.stream(values()).filter(t -> t.topicName.equals(name)).findFirst();
    }

    public static Topic of(Class<? extends EventPayload> payloadType) {
        return Arrays.stream(values()).filter(t -> t.payloadType == payloadType).findFirst()
                .orElseThrow(() -> new IllegalArgumentException("no topic carries " + payloadType.getName()));
    }
}
