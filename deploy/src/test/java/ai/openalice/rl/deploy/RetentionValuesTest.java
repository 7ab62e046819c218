package ai.openalice.rl.deploy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fabric8.kubernetes.api.model.ConfigMap;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * The chart's {@code retention} values reach every service (the shared ConfigMap, one environment
 * variable per setting) and their defaults are the services' own, read from the
 * {@code @WithDefault} of each setting in the service's source, so that the two cannot drift apart.
 */
class RetentionValuesTest {
    /** Environment variable → the config interface declaring it and its method. */
    static final Map<String, String[]> SETTINGS = Map.of(
            "ALICE_OUTBOX_KEEP_SENT", new String[] {"libs/service-kit/src/main/java/ai/openalice/rl/servicekit/OutboxConfig.java", "keepSent"},
            "TRAINER_KEEP_TRAJECTORY_STEPS", new String[] {"services/trainer/src/main/java/ai/openalice/rl/trainer/config/TrainerConfig.java", "keepTrajectorySteps"},
            "TRAINER_KEEP_DROPPED_TRAJECTORIES", new String[] {"services/trainer/src/main/java/ai/openalice/rl/trainer/config/TrainerConfig.java",
                    "keepDroppedTrajectories"},
            "TRAINER_KEEP_CHECKPOINTS", new String[] {"services/trainer/src/main/java/ai/openalice/rl/trainer/config/TrainerConfig.java", "keepCheckpoints"},
            "TRAINER_KEEP_CHECKPOINT_EVERY", new String[] {"services/trainer/src/main/java/ai/openalice/rl/trainer/config/TrainerConfig.java",
                    "keepCheckpointEvery"},
            "RUNNER_KEEP_ARTIFACTS", new String[] {"services/sandbox-runner/src/main/java/ai/openalice/rl/runner/config/RunnerConfig.java", "keepArtifacts"},
            "VERIFIER_KEEP_VERIFICATIONS", new String[] {"services/verifier/src/main/java/ai/openalice/rl/verifier/config/VerifierConfig.java",
                    "keepVerifications"},
            "DISPATCHER_KEEP_HISTORY", new String[] {"services/task-dispatcher/src/main/java/ai/openalice/rl/dispatcher/config/DispatcherConfig.java",
                    "keepHistory"});

    static Map<String, String> config(Map<String, Object> sets) {
        return Chart.of(Chart.objects(Chart.render(sets)), ConfigMap.class).stream().filter(c -> c.getMetadata().getName().endsWith("-config"))
                .findFirst().orElseThrow().getData();
    }

    static String serviceDefault(String file, String method) throws Exception {
        String source = Files.readString(RunProfileTest.ROOT.resolve(file));
        var m = Pattern.compile("@WithDefault\\(\"([^\"]*)\"\\)\\s+\\w+\\s+" + method + "\\(\\)").matcher(source);
        assertTrue(m.find(), file + " declares " + method + "() with a @WithDefault");
        return m.group(1);
    }

    @Test
    void everyRetentionSettingReachesTheServicesWithTheServicesOwnDefault() throws Exception {
        var data = config(Map.of());
        for (var e : SETTINGS.entrySet()) {
            assertEquals(serviceDefault(e.getValue()[0], e.getValue()[1]), data.get(e.getKey()),
                    e.getKey() + ": the chart's default differs from " + Path.of(e.getValue()[0]).getFileName() + " " + e.getValue()[1] + "()");
        }
    }

    @Test
    void aValueSetInTheChartIsWhatTheServicesGet() {
        var data = config(Map.of("retention.verifications", "P3D", "retention.trainedTrajectorySteps", "5", "retention.outboxSent", "PT6H"));
        assertEquals("P3D", data.get("VERIFIER_KEEP_VERIFICATIONS"));
        assertEquals("5", data.get("TRAINER_KEEP_TRAJECTORY_STEPS"));
        assertEquals("PT6H", data.get("ALICE_OUTBOX_KEEP_SENT"));
    }

    @Test
    void theSchemaRefusesADurationThatIsNotIso8601() {
        var e = assertThrows(RuntimeException.class, () -> Chart.render(Map.of("retention.dispatcherHistory", "30 days")));
        assertTrue(e.getMessage().contains("retention.dispatcherHistory"), e.getMessage());
        assertThrows(RuntimeException.class, () -> Chart.render(Map.of("retention.checkpoints", "0")), "at least one checkpoint is kept");
    }
}
