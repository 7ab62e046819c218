package ai.openalice.rl.verifier;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ai.openalice.rl.testkit.TestStack;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import org.flywaydb.core.Flyway;
import org.flywaydb.core.api.FlywayException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A database migrated by the release before the outbox had one definition (each service's V1
 * created its outbox; service-kit's repeatable migration only added to it) upgrades: its V1's
 * checksum no longer matches, which Flyway refuses; repaired at start, as the services are
 * configured (alice-database.properties), it migrates, keeps the rows it had, and has the outbox
 * as service-kit defines it.
 */
class OutboxUpgradeTest {
    /** The outbox DDL V1__verifier.sql ended with before 2026-12, as it was written there. */
    static final String OLD_OUTBOX = """
            CREATE TABLE outbox (
                id         bigserial   PRIMARY KEY,
                topic      text        NOT NULL,
                event_key  text        NOT NULL,
                payload    bytea       NOT NULL,
                created_at timestamptz NOT NULL DEFAULT now(),
                sent_at    timestamptz
            );
            CREATE INDEX outbox_unsent ON outbox (id) WHERE sent_at IS NULL;
            """;

    @TempDir
    Path tmp;

    @Test
    void aDatabaseOfTheEarlierReleaseUpgrades() throws Exception {
        String schema = "verifier_upgrade_" + UUID.randomUUID().toString().substring(0, 8);
        Path earlier = Files.createDirectories(tmp.resolve("earlier"));
        for (String name : List.of("V1__verifier.sql", "V2__environment_checks.sql", "V3__verification_retention.sql")) {
            String sql = resource("db/migration/" + name);
            Files.writeString(earlier.resolve(name), name.startsWith("V1") ? sql + "\n" + OLD_OUTBOX : sql);
        }
        Files.writeString(earlier.resolve("R__outbox.sql"), "CREATE INDEX IF NOT EXISTS outbox_sent ON outbox (sent_at) WHERE sent_at IS NOT NULL;\n"
                + "ALTER TABLE outbox ADD COLUMN IF NOT EXISTS dead_reason text;\n");
        try {
            flyway(schema, "filesystem:" + earlier).migrate();
            execute("INSERT INTO " + schema + ".outbox (topic, event_key, payload) VALUES ('verifications.completed', 'k', '\\x01')");

            var e = assertThrows(FlywayException.class, () -> flyway(schema, "classpath:db/migration", "classpath:db/outbox").migrate());
            assertTrue(e.getMessage().contains("checksum mismatch for migration version 1"), e.getMessage());

            var now = flyway(schema, "classpath:db/migration", "classpath:db/outbox");
            now.repair();
            now.migrate();
            assertEquals(List.of("id", "topic", "event_key", "payload", "created_at", "sent_at", "dead_reason"),
                    column("SELECT column_name FROM information_schema.columns WHERE table_schema = '" + schema
                            + "' AND table_name = 'outbox' ORDER BY ordinal_position"));
            assertEquals(List.of("outbox_pkey", "outbox_sent", "outbox_unsent"), column("SELECT indexname FROM pg_indexes WHERE schemaname = '"
                    + schema + "' AND tablename = 'outbox' ORDER BY indexname"));
            assertEquals(List.of("verifications.completed"), column("SELECT topic FROM " + schema + ".outbox"), "the rows it had stay");
            // repair left the repeatable migration's checksum alone: the new one was applied (a later change to it will be too)
            assertEquals(List.of("true", "true"), column("SELECT success::text FROM " + schema + ".flyway_schema_history WHERE script = 'R__outbox.sql'"
                    + " ORDER BY installed_rank"));
            flyway(schema, "classpath:db/migration", "classpath:db/outbox").validate(); // and the next start needs no repair
        } finally {
            execute("DROP SCHEMA IF EXISTS " + schema + " CASCADE");
        }
    }

    private static Flyway flyway(String schema, String... locations) {
        return Flyway.configure().dataSource(TestStack.jdbcUrl(), TestStack.dbUser(), TestStack.dbPassword()).schemas(schema).createSchemas(true)
                .locations(locations).load();
    }

    private static String resource(String name) throws IOException {
        try (InputStream in = OutboxUpgradeTest.class.getClassLoader().getResourceAsStream(name)) {
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
    }

    private static void execute(String sql) throws SQLException {
        try (Connection c = TestStack.openDatabase(); var st = c.createStatement()) {
            st.execute(sql);
        }
    }

    private static List<String> column(String sql) throws SQLException {
        var out = new ArrayList<String>();
        try (Connection c = TestStack.openDatabase(); var st = c.createStatement(); var rs = st.executeQuery(sql)) {
            while (rs.next()) {
                out.add(rs.getString(1));
            }
        }
        return out;
    }
}
