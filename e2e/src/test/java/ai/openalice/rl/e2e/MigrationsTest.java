package ai.openalice.rl.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.HexFormat;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * A versioned migration, once released, is never edited: a database that applied it holds its
 * checksum, and a change would reach only new databases. Each is held to the sha256 it was released
 * with, and a new one is listed here as it is written. (The services repair checksums at start since the
 * outbox's DDL left every V1 — alice-database.properties — so this test, not Flyway, is the guard.)
 */
class MigrationsTest {
    static final Map<String, String> RELEASED = Map.ofEntries(
            Map.entry("rubric-prm/src/main/resources/db/migration/V1__rubric.sql", "37e71d538e727b4db303c869284a0f686158054713ee20f56b9c99dc71110452"),
            Map.entry("rubric-prm/src/main/resources/db/migration/V2__rubrics.sql", "76fc3cfbb9c94df394e31009fa1e0ab48189de111512b470e6b0a0ac7928934f"),
            Map.entry("rubric-prm/src/main/resources/db/migration/V3__verdicts_carry_the_episode.sql", "0cd17fd1d7604878861c8915d8f3788af87b7dc96834a6befb6527ba9e0474ae"),
            Map.entry("sandbox-runner/src/main/resources/db/migration/V1__runner.sql", "7a7a21123249479c96d7763c7e8bdab7f0d5a43d9308215eba7fba1b11a8bc7d"),
            Map.entry("task-dispatcher/src/main/resources/db/migration/V1__dispatcher.sql", "8c093ee56df32ac1ed6243fad38b47d1ebaff75e3b9e927d91b65b146bd5049f"),
            Map.entry("task-dispatcher/src/main/resources/db/migration/V2__pacing_indexes.sql", "b0af96642c7eb95774c80a42bcc438346d48decdacbf409fb53da185a631259b"),
            Map.entry("task-dispatcher/src/main/resources/db/migration/V3__compact_filter.sql", "ca4916faac60835541167a30941925b9dbfdef83aba339b2f1a6c0baa90ea31d"),
            Map.entry("task-dispatcher/src/main/resources/db/migration/V4__curriculum_cohorts.sql", "4d4acfb092d1ba7b62131c0cfa3fb7743262acabf099faf570a001460b29fb8e"),
            Map.entry("task-dispatcher/src/main/resources/db/migration/V5__tasks_accepted.sql", "4389e12a64709b93c6547f8b3b2acd084f1e3436276e950ae80118cd7925693e"),
            Map.entry("task-dispatcher/src/main/resources/db/migration/V6__trainer_terms.sql", "fffda3c4a0ed42b8072a1659266b81898ca9977c3dad78218025fb231d5b5553"),
            Map.entry("task-dispatcher/src/main/resources/db/migration/V7__group_temperature.sql", "54457792600c9279132d209b2764e4db77acf0538bd3ef8bc572b4eba40fdc4b"),
            Map.entry("task-dispatcher/src/main/resources/db/migration/V8__source_quotas.sql", "90c4c7e5466f8c1bd9ffcb4c9516796902ea29dadd39b0da5216d41ad238e24b"),
            Map.entry("task-dispatcher/src/main/resources/db/migration/V9__history_retention.sql", "36cc2be149d6730523f0e570be993247ebe88d45d5535de0ab7de5e2ff24180c"),
            Map.entry("trainer/src/main/resources/db/migration/V1__trainer.sql", "c38f9ab5ed480bef9493ad8d9a7c6dd0e21c34da978b3866c81ab7eed699959d"),
            Map.entry("trainer/src/main/resources/db/migration/V2__samples_carry_their_header.sql", "2d292d100cfafb4aff80cdda7c6a664573ef52f826fd0c3bb22ab22386f82705"),
            Map.entry("trainer/src/main/resources/db/migration/V3__trained_trajectories_can_be_dropped.sql", "3759442a72cd298005f64c22020ebecd0bcd95ec06ffb7fc979526670602eb70"),
            Map.entry("trainer/src/main/resources/db/migration/V4__checkpoints_without_onnx.sql", "97f200b8d7a0640721c3ee31e96667dec2196f760ada8b870e9716dbf9f5211d"),
            Map.entry("trainer/src/main/resources/db/migration/V5__tracking.sql", "8e2550a1f0e0be64fcf6822b4af4c909c598c37229037d4b744a1310979b05e3"),
            Map.entry("verifier/src/main/resources/db/migration/V1__verifier.sql", "61fc67890230676af7e4c53e009e55ca5fe23f818e1139741ef70473a2782e0c"),
            Map.entry("verifier/src/main/resources/db/migration/V2__environment_checks.sql", "ad6acd24509eef1fa6c6276848d888f6e57e163833fe135bc6ebf33c8faea1b8"),
            Map.entry("verifier/src/main/resources/db/migration/V3__verification_retention.sql", "ffe41a9eaaf6b9abc554b94a481c964393920c6942deaa3fb1e2cb3cc5568ed5"));

    @Test
    void noReleasedMigrationIsEdited() throws Exception {
        var found = new TreeMap<String, String>();
        Path services = ArchitectureTest.ROOT.resolve("services");
        try (Stream<Path> files = Files.walk(services)) {
            for (Path f : files.filter(p -> p.toString().contains("src/main/resources/db/migration/")).sorted().toList()) {
                var sha = HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(Files.readAllBytes(f)));
                found.put(services.relativize(f).toString(), sha);
            }
        }
        // a new migration is listed here when it is written; an edited or removed one fails
        assertEquals(new TreeMap<>(RELEASED), found, "a migration is changed, gone or not listed: a change to a schema is a new versioned migration");
    }
}
