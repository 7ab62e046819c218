package ai.openalice.rl.cli;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;

/**
 * Kafka client settings from a properties file, as Kafka's own tools take them
 * ({@code security.protocol}, {@code sasl.mechanism}, {@code sasl.jaas.config},
 * {@code ssl.truststore.location}...), for the CLI's own clients and — as {@code KAFKA_*}
 * environment variables, never on a command line — for the services a run starts.
 */
public final class KafkaClientConfig {
    private KafkaClientConfig() {}

    /** The file's settings (empty for null); a file that cannot be read is an IllegalArgumentException naming it. */
    public static Properties load(Path file) {
        var p = new Properties();
        if (file == null) {
            return p;
        }
        try (var in = Files.newBufferedReader(file)) {
            p.load(in);
        } catch (IOException | IllegalArgumentException e) {
            throw new IllegalArgumentException("--kafka-config: cannot read " + file + ": " + e.getMessage(), e);
        }
        return p;
    }

    /** The same settings as the services read them from their environment: {@code sasl.jaas.config} → {@code KAFKA_SASL_JAAS_CONFIG}. */
    public static Map<String, String> environment(Properties p) {
        var env = new TreeMap<String, String>();
        for (String k : p.stringPropertyNames()) {
            env.put("KAFKA_" + k.toUpperCase(Locale.ROOT).replace('.', '_').replace('-', '_'), p.getProperty(k));
        }
        return env;
    }
}
