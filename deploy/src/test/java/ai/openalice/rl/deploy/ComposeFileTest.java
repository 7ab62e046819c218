package ai.openalice.rl.deploy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.yaml.snakeyaml.Yaml;

/**
 * docker-compose.yml against the services' own configuration: every service of services/ is there,
 * on the port its application.properties defaults to, after Kafka and PostgreSQL are healthy,
 * pointed at them by the same variables the services read; the sandboxed ones privileged; the
 * artifact volume where checkpoints and trajectories travel; the Dockerfiles it names exist.
 */
class ComposeFileTest {
    static final Path ROOT = Path.of("..").toAbsolutePath().normalize();
    static final Pattern PORT = Pattern.compile("quarkus\\.http\\.port=\\$\\{([A-Z_]+):(\\d+)}");

    static JsonNode compose() throws Exception {
        // SnakeYAML resolves the anchors and merge keys (<<) as Compose does; Jackson's YAML parser would keep "<<" as a key
        Object tree = new Yaml().load(Files.readString(ROOT.resolve("docker-compose.yml")));
        return new ObjectMapper().valueToTree(tree);
    }

    /** service folder → its default HTTP port, read from its application.properties. */
    static Map<String, Integer> servicePorts() throws Exception {
        var out = new TreeMap<String, Integer>();
        try (var dirs = Files.list(ROOT.resolve("services"))) {
            for (Path d : dirs.toList()) {
                var m = PORT.matcher(Files.readString(d.resolve("src/main/resources/application.properties")));
                assertTrue(m.find(), d + " declares no quarkus.http.port default");
                out.put(d.getFileName().toString(), Integer.parseInt(m.group(2)));
            }
        }
        return out;
    }

    @Test
    void everyServiceRunsOnItsOwnPortAfterTheBrokerAndTheDatabase() throws Exception {
        JsonNode services = compose().get("services");
        var ports = servicePorts();
        var names = new TreeSet<String>();
        services.fieldNames().forEachRemaining(names::add);
        var expected = new TreeSet<>(ports.keySet());
        expected.addAll(Set.of("kafka", "postgres"));
        assertEquals(expected, names);
        for (var e : ports.entrySet()) {
            JsonNode s = services.get(e.getKey());
            assertEquals("127.0.0.1:" + e.getValue() + ":" + e.getValue(), s.get("ports").get(0).asText(), e.getKey());
            assertEquals("service_healthy", s.at("/depends_on/kafka/condition").asText(), e.getKey() + " waits for Kafka");
            assertEquals("kafka:9092", s.at("/environment/ALICE_KAFKA_BOOTSTRAP").asText(), e.getKey());
            // tokens unchecked only because every port above is published on loopback; set, not left to the services' default (on, no key: refuses to start)
            assertEquals("${ALICE_AUTH_ENABLED:-false}", s.at("/environment/ALICE_AUTH_ENABLED").asText(), e.getKey());
            if (!e.getKey().equals("inference")) {
                assertEquals("service_healthy", s.at("/depends_on/postgres/condition").asText(), e.getKey() + " waits for PostgreSQL");
                assertEquals("postgresql://postgres:5432/alice_rl", s.at("/environment/ALICE_DB_REACTIVE_URL").asText(), e.getKey());
            }
            String dockerfile = s.at("/build/dockerfile").asText();
            assertTrue(Files.exists(ROOT.resolve(dockerfile)), dockerfile);
            assertEquals(e.getKey(), s.at("/build/args/SERVICE").asText());
        }
        JsonNode kafka = services.get("kafka");
        assertTrue(kafka.at("/environment/KAFKA_ADVERTISED_LISTENERS").asText().contains("INTERNAL://kafka:9092"));
        assertEquals("alice_rl", services.at("/postgres/environment/POSTGRES_DB").asText());
        assertEquals(services.at("/postgres/environment/POSTGRES_PASSWORD").asText(), services.at("/trainer/environment/ALICE_DB_PASSWORD").asText());
    }

    @Test
    void registryImagesCanBeReplacedAndEveryContainerChecksItsOwnHealth() throws Exception {
        JsonNode services = compose().get("services");
        // a machine without Docker Hub runs images of its own: dev/stack docker up loads ones that read the same variables
        assertEquals("${ALICE_KAFKA_IMAGE:-apache/kafka:4.1.0}", services.at("/kafka/image").asText());
        assertEquals("${ALICE_POSTGRES_IMAGE:-postgres:16}", services.at("/postgres/image").asText());
        assertEquals("/var/lib/kafka/data", services.at("/kafka/environment/KAFKA_LOG_DIRS").asText(), "where its volume is mounted");
        assertTrue(services.at("/kafka/volumes").toString().contains(":/var/lib/kafka/data"));
        for (var e : servicePorts().entrySet()) {
            String check = services.at("/" + e.getKey() + "/healthcheck/test").toString();
            assertTrue(check.contains("/dev/tcp/127.0.0.1/" + e.getValue()) && check.contains("GET /q/health/ready"), e.getKey() + ": " + check);
            assertEquals(60, services.at("/" + e.getKey() + "/healthcheck/retries").asInt(), e.getKey());
        }
        assertTrue(services.at("/kafka/healthcheck/test").toString().contains("kafka-broker-api-versions.sh"));
        assertTrue(services.at("/postgres/healthcheck/test").toString().contains("pg_isready"));
    }

    @Test
    void sandboxedServicesArePrivilegedAndArtifactsAreShared() throws Exception {
        JsonNode services = compose().get("services");
        for (String s : Set.of("sandbox-runner", "verifier")) {
            assertTrue(services.at("/" + s + "/privileged").asBoolean(), s + " runs bubblewrap sandboxes");
            assertEquals("deploy/docker/Dockerfile.sandboxed", services.at("/" + s + "/build/dockerfile").asText());
        }
        for (String s : Set.of("sandbox-runner", "verifier", "rubric-prm", "inference", "trainer")) {
            assertTrue(services.at("/" + s + "/volumes").toString().contains("artifacts:/var/lib/alice-rl/artifacts"), s);
        }
        assertTrue(services.at("/trainer/environment/TRAINER_ARTIFACT_DIR").asText().startsWith("/var/lib/alice-rl/artifacts/"));
        assertEquals("http://inference:" + servicePorts().get("inference"), services.at("/sandbox-runner/environment/RUNNER_INFERENCE_URL").asText());
        assertEquals("http://rubric-prm:" + servicePorts().get("rubric-prm"), services.at("/sandbox-runner/environment/RUNNER_RUBRIC_URL").asText());
    }
}
