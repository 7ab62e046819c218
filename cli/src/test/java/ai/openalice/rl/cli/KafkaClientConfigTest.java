package ai.openalice.rl.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class KafkaClientConfigTest {
    /** The services read KAFKA_SASL_JAAS_CONFIG as kafka.sasl.jaas.config (Quarkus lower-cases and turns _ into .), so the names must round-trip. */
    @Test
    void settingsBecomeTheEnvironmentTheServicesRead(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("client.properties");
        Files.writeString(file, "security.protocol=SASL_SSL\nsasl.mechanism=SCRAM-SHA-512\n"
                + "sasl.jaas.config=org.apache.kafka.common.security.scram.ScramLoginModule required username=\"a\" password=\"p=1\";\n"
                + "ssl.truststore.location=/etc/ca.p12\n");
        var env = KafkaClientConfig.environment(KafkaClientConfig.load(file));
        assertEquals(Map.of("KAFKA_SECURITY_PROTOCOL", "SASL_SSL", "KAFKA_SASL_MECHANISM", "SCRAM-SHA-512", "KAFKA_SASL_JAAS_CONFIG",
                "org.apache.kafka.common.security.scram.ScramLoginModule required username=\"a\" password=\"p=1\";", "KAFKA_SSL_TRUSTSTORE_LOCATION",
                "/etc/ca.p12"), env);
        assertEquals(Map.of(), KafkaClientConfig.environment(KafkaClientConfig.load(null)));
        var e = assertThrows(IllegalArgumentException.class, () -> KafkaClientConfig.load(dir.resolve("missing.properties")));
        assertTrue(e.getMessage().startsWith("--kafka-config: cannot read " + dir.resolve("missing.properties")), e.getMessage());
    }
}
