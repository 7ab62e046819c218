package ai.openalice.rl.servicekit;

import ai.openalice.rl.events.Topic;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.AlterConfigOp;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.config.TopicConfig;
import org.apache.kafka.common.errors.TopicExistsException;

/**
 * Makes a topic what {@link Topic} says it is: created with its partitions and its retention or
 * compaction when missing; a topic that must be compacted and is not (a broker that auto-created it
 * when a consumer asked first) is switched to compaction. The replication factor is the broker's default.
 */
public final class KafkaTopics {
    private KafkaTopics() {}

    /** What {@link #ensure} did. */
    public enum Outcome { CREATED, COMPACTION_TURNED_ON, ALREADY_RIGHT }

    /**
     * @param connection bootstrap servers and security settings ({@link KafkaClients#connection()})
     * @param name the topic's name on this deployment (its {@link Topic#topicName()} plus any suffix)
     */
    public static Outcome ensure(Map<String, Object> connection, Topic topic, String name) throws Exception {
        var settings = new HashMap<>(connection);
        settings.put(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, 15_000);
        settings.put(AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, 10_000);
        try (Admin admin = Admin.create(settings)) {
            if (!admin.listTopics().names().get(15, TimeUnit.SECONDS).contains(name)) {
                var config = topic.compacted() ? Map.of(TopicConfig.CLEANUP_POLICY_CONFIG, TopicConfig.CLEANUP_POLICY_COMPACT)
                        : Map.of(TopicConfig.RETENTION_MS_CONFIG, Long.toString(topic.retention().orElseThrow().toMillis()));
                try {
                    admin.createTopics(List.of(new NewTopic(name, Optional.of(topic.partitions()), Optional.empty()).configs(config)))
                            .all().get(15, TimeUnit.SECONDS);
                    return Outcome.CREATED;
                } catch (ExecutionException e) {
                    if (!(e.getCause() instanceof TopicExistsException)) {
                        throw e;
                    }
                    // created meanwhile (a consumer's metadata request on a broker that auto-creates): check it below
                }
            }
            if (!topic.compacted()) {
                return Outcome.ALREADY_RIGHT;
            }
            var resource = new ConfigResource(ConfigResource.Type.TOPIC, name);
            var policy = admin.describeConfigs(List.of(resource)).all().get(15, TimeUnit.SECONDS).get(resource)
                    .get(TopicConfig.CLEANUP_POLICY_CONFIG);
            if (policy != null && policy.value().contains(TopicConfig.CLEANUP_POLICY_COMPACT)) {
                return Outcome.ALREADY_RIGHT;
            }
            admin.incrementalAlterConfigs(Map.of(resource, List.of(new AlterConfigOp(
                    new ConfigEntry(TopicConfig.CLEANUP_POLICY_CONFIG, TopicConfig.CLEANUP_POLICY_COMPACT), AlterConfigOp.OpType.SET))))
                    .all().get(15, TimeUnit.SECONDS);
            return Outcome.COMPACTION_TURNED_ON;
        }
    }
}
