package ai.openalice.rl.events;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** schemas/topics.md and {@link Topic} say the same thing, and every topic's schema file exists. */
class TopicsDocTest {

    @Test
    void tableMatchesTheTopicEnum() throws IOException {
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
        assertEquals(Topic.values().length, rows.size(), "topics.md rows: " + rows.keySet());
        for (Topic t : Topic.values()) {
            String[] cells = rows.get(t.topicName());
            assertNotNull(cells, t.topicName() + " missing from topics.md");
            assertEquals(t.schemaFile(), cells[1].trim());
            assertEquals(t.partitions(), Integer.parseInt(cells[5].trim()), t.topicName() + " partitions");
            assertEquals(t.retention().toDays() + "d", cells[6].trim(), t.topicName() + " retention");
            assertNotNull(getClass().getResource("/schemas/" + t.schemaFile()), t.schemaFile() + " missing");
        }
    }

    @Test
    void namesConstantsMatchTheEnum() {
        assertEquals(Topic.TASKS_SUBMITTED.topicName(), Topic.Names.TASKS_SUBMITTED);
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
