package ai.openalice.rl.servicekit;

import io.smallrye.common.annotation.Identifier;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.util.Map;
import java.util.TreeMap;

/**
 * How the service's own Kafka clients (topic provisioning, the dead-letter producer) connect: the
 * same bootstrap servers and the same client security settings as its messaging channels —
 * {@code kafka.security.protocol}, {@code kafka.sasl.*} (mechanism, JAAS config),
 * {@code kafka.ssl.*} (truststore) — taken from Quarkus' {@code default-kafka-broker} settings,
 * where {@code KAFKA_SASL_JAAS_CONFIG} from a Secret lands as {@code sasl.jaas.config}.
 */
@ApplicationScoped
public class KafkaClients {
    @Inject
    @Identifier("default-kafka-broker")
    Map<String, Object> broker;

    /** Bootstrap servers and security settings, ready for a producer, consumer or admin client. */
    public Map<String, Object> connection() {
        return connection(broker);
    }

    static Map<String, Object> connection(Map<String, Object> broker) {
        var out = new TreeMap<String, Object>();
        broker.forEach((k, v) -> {
            if (k.equals("bootstrap.servers") || k.equals("security.protocol") || k.startsWith("sasl.") || k.startsWith("ssl.")) {
                out.put(k, v);
            }
        });
        return out;
    }
}
