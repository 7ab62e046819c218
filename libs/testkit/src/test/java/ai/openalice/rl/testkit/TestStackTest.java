package ai.openalice.rl.testkit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.NewTopic;
import org.junit.jupiter.api.Test;

/** The run's infrastructure is real and provisioned as the services expect. */
class TestStackTest {

    @Test
    void kafkaBrokerIsARealClusterThatCreatesTopics() throws Exception {
        try (var admin = TestStack.kafkaAdmin()) {
            var cluster = admin.describeCluster();
            String clusterId = cluster.clusterId().get(10, TimeUnit.SECONDS);
            var nodes = cluster.nodes().get(10, TimeUnit.SECONDS);
            System.out.printf("[stack] Kafka broker at %s: cluster %s, %d node(s)%n", TestStack.kafkaBootstrap(), clusterId, nodes.size());
            assertFalse(nodes.isEmpty());
            String topic = "testkit.probe." + UUID.randomUUID();
            admin.createTopics(List.of(new NewTopic(topic, 2, (short) 1)))
                    .all().get(10, TimeUnit.SECONDS);
            var description = admin.describeTopics(List.of(topic)).allTopicNames().get(10, TimeUnit.SECONDS).get(topic);
            assertEquals(2, description.partitions().size());
            admin.deleteTopics(List.of(topic)).all().get(10, TimeUnit.SECONDS);
        }
    }

    @Test
    void databaseRoleOwnsTheTestDatabaseAndCanCreateSchemas() throws SQLException {
        try (var c = TestStack.openDatabase(); var s = c.createStatement()) {
            ResultSet rs = s.executeQuery("SELECT version(), current_user, current_database()");
            assertTrue(rs.next());
            System.out.printf("[stack] PostgreSQL at %s: %s (user %s, database %s)%n",
                    TestStack.jdbcUrl(), rs.getString(1), rs.getString(2), rs.getString(3));
            assertEquals(TestStack.dbUser(), rs.getString(2));
            // Each service owns a schema: the role must be able to create one and write to it.
            String schema = "probe_" + UUID.randomUUID().toString().replace("-", "");
            s.execute("CREATE SCHEMA " + schema);
            s.execute("CREATE TABLE " + schema + ".t (id int primary key)");
            s.execute("INSERT INTO " + schema + ".t VALUES (1), (2)");
            rs = s.executeQuery("SELECT count(*) FROM " + schema + ".t");
            assertTrue(rs.next());
            assertEquals(2, rs.getInt(1));
            s.execute("DROP SCHEMA " + schema + " CASCADE");
        }
    }
}
