package ai.openalice.rl.cli.train;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The database wait read from a starting service's log, as Flyway 12 writes it, and only since that start. */
class StartWaitsTest {
    @Test
    void theLastConnectionErrorSinceTheStartIsSaid(@TempDir Path dir) throws Exception {
        String earlier = "2026-12-06 13:00:00,000 WARN  [org.flywaydb.core.internal.jdbc.JdbcUtils] (main) Connection error: an earlier run's\n";
        Path log = Files.writeString(dir.resolve("trainer.log"), earlier);
        long from = Files.size(log);
        assertNull(StartWaits.database(log, from), "nothing since this start");
        Files.writeString(log, """
                2026-12-06 13:29:31,637 WARN  [org.flywaydb.core.internal.jdbc.JdbcUtils] (main) Connection error: Connection to 127.0.0.1:44939 \
                refused. Check that the hostname and port are correct and that the postmaster is accepting TCP/IP connections. (SQL State: 08001)
                Retrying in 1 sec...
                """, StandardOpenOption.APPEND);
        assertEquals("Connection to 127.0.0.1:44939 refused", StartWaits.database(log, from));
        assertNull(StartWaits.database(dir.resolve("none.log"), 0), "no log yet");
    }
}
