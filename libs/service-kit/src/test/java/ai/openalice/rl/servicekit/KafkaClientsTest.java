package ai.openalice.rl.servicekit;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.Map;
import org.junit.jupiter.api.Test;

class KafkaClientsTest {
    /** The service's own clients take the channels' connection and security settings, and nothing channel-specific. */
    @Test
    void connectionKeepsServersAndSecurityOnly() {
        var broker = Map.<String, Object>of("bootstrap.servers", "k:9093", "security.protocol", "SASL_SSL", "sasl.mechanism", "SCRAM-SHA-512",
                "sasl.jaas.config", "x required;", "ssl.truststore.location", "/etc/ts.p12", "acks", "all", "group.id", "g",
                "value.deserializer", "org.apache.kafka.common.serialization.ByteArrayDeserializer");
        assertEquals(Map.of("bootstrap.servers", "k:9093", "security.protocol", "SASL_SSL", "sasl.mechanism", "SCRAM-SHA-512", "sasl.jaas.config",
                "x required;", "ssl.truststore.location", "/etc/ts.p12"), KafkaClients.connection(broker));
    }
}
