package ai.openalice.rl.events;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/** schemas/topics.md and {@link Topic} say the same thing, and every topic's schema file exists. */
class TopicsDocTest {

    private Map<String, String[]> rows() throws IOException {
        String md;
        try (InputStream in = getClass().getResourceAsStream("/schemas/topics.md")) {
            assertNotNull(in, "schemas/topics.md is not on the classpath");
            md = new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
        Map<String, String[]> rows = new HashMap<>();
        for (String line : md.split("\n")) {
            if (line.startsWith("| ") && !line.startsWith("| topic")) {
                String[] cells = line.substring(1).split("\\|");
                rows.put(cells[0].trim(), cells);
            }
        }
        return rows;
    }

    @Test
    void tableMatchesTheTopicEnum() throws IOException {
        Map<String, String[]> rows = rows();
        assertEquals(Topic.values().length, rows.size(), "topics.md rows: " + rows.keySet());
        for (Topic t : Topic.values()) {
            String[] cells = rows.get(t.topicName());
            assertNotNull(cells, t.topicName() + " missing from topics.md");
            assertEquals(t.schemaFile(), cells[1].trim());
            assertEquals(t.partitions(), Integer.parseInt(cells[5].trim()), t.topicName() + " partitions");
            assertEquals(t.retention().map(r -> r.toDays() + "d").orElse("compacted"), cells[6].trim(), t.topicName() + " retention");
            assertNotNull(getClass().getResource("/schemas/" + t.schemaFile()), t.schemaFile() + " missing");
        }
    }

    static final List<String> SERVICES = List.of("task-dispatcher", "sandbox-runner", "verifier", "rubric-prm", "trainer", "inference");
    static final Pattern CHANNEL_TOPIC = Pattern.compile("^mp\\.messaging\\.(incoming|outgoing)\\.[a-z-]+\\.topic=([a-z.]+)\\$\\{alice\\.topic-suffix\\}$",
            Pattern.MULTILINE);

    /** The producer and consumer columns name exactly the services whose configuration reads or writes each topic. */
    @Test
    void producersAndConsumersMatchEveryServicesChannels() throws IOException {
        Map<String, Set<String>> consumers = new HashMap<>();
        Map<String, Set<String>> producers = new HashMap<>();
        for (String service : SERVICES) {
            var props = Path.of("..", "..", "services", service, "src", "main", "resources", "application.properties");
            var m = CHANNEL_TOPIC.matcher(Files.readString(props));
            while (m.find()) {
                (m.group(1).equals("incoming") ? consumers : producers).computeIfAbsent(m.group(2), k -> new TreeSet<>()).add(service);
            }
        }
        Map<String, String[]> rows = rows();
        for (Topic t : Topic.values()) {
            String[] cells = rows.get(t.topicName());
            assertEquals(producers.getOrDefault(t.topicName(), Set.of()), servicesIn(cells[3]), t.topicName() + " producers");
            assertEquals(consumers.getOrDefault(t.topicName(), Set.of()), servicesIn(cells[4]), t.topicName() + " consumers");
        }
    }

    private static Set<String> servicesIn(String cell) {
        var out = new TreeSet<String>();
        for (String part : cell.split("[,(]")) {
            String name = part.strip().split("\\s")[0];
            if (SERVICES.contains(name)) {
                out.add(name);
            }
        }
        return out;
    }

    @Test
    void namesConstantsMatchTheEnum() {
        assertEquals(Topic.TASKS_SUBMITTED.topicName(), Topic.Names.TASKS_SUBMITTED);
        assertEquals(Topic.TASKS_ACCEPTED.topicName(), Topic.Names.TASKS_ACCEPTED);
        assertEquals(Topic.TASKS_REJECTED.topicName(), Topic.Names.TASKS_REJECTED);
        assertEquals(Topic.ROLLOUTS_REQUESTED.topicName(), Topic.Names.ROLLOUTS_REQUESTED);
        assertEquals(Topic.ROLLOUTS_COMPLETED.topicName(), Topic.Names.ROLLOUTS_COMPLETED);
        assertEquals(Topic.VERIFICATIONS_COMPLETED.topicName(), Topic.Names.VERIFICATIONS_COMPLETED);
        assertEquals(Topic.REWARDS_SCORED.topicName(), Topic.Names.REWARDS_SCORED);
        assertEquals(Topic.CHECKPOINTS_PUBLISHED.topicName(), Topic.Names.CHECKPOINTS_PUBLISHED);
        assertEquals(Topic.TRAINING_METRICS.topicName(), Topic.Names.TRAINING_METRICS);
        assertTrue(Topic.byName("nope").isEmpty());
    }
}
