package ai.openalice.rl.deploy;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ai.openalice.rl.events.RunProfile;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * A cluster and the one-host stack run the configuration that was measured to learn: it is every
 * service's default ({@link RunProfile}), so the chart, compose and the images must not set any of its
 * keys — not as an environment variable (MicroProfile's mapping: {@code trainer.loss.aggregation} is
 * {@code TRAINER_LOSS_AGGREGATION}), not as a {@code -D} option, not in a service's own application.properties.
 */
class RunProfileTest {
    static final Path ROOT = ComposeFileTest.ROOT;

    static String envName(String key) {
        return key.replaceAll("[^A-Za-z0-9]", "_").toUpperCase(Locale.ROOT);
    }

    /** Every place a setting could be made, as text, with where it comes from. */
    static List<Map.Entry<String, String>> deployedSettings() throws Exception {
        var out = new ArrayList<Map.Entry<String, String>>();
        for (Deployment d : Chart.of(Chart.objects(Chart.render(Map.of())), Deployment.class)) {
            for (Container c : d.getSpec().getTemplate().getSpec().getContainers()) {
                c.getEnv().forEach(e -> out.add(Map.entry("helm " + d.getMetadata().getName(), e.getName() + "=" + e.getValue())));
                Stream.concat(c.getArgs().stream(), c.getCommand().stream()).forEach(a -> out.add(Map.entry("helm " + d.getMetadata().getName(), a)));
            }
        }
        var services = ComposeFileTest.compose().get("services");
        services.fields().forEachRemaining(s -> {
            s.getValue().path("environment").fields().forEachRemaining(e -> out.add(Map.entry("compose " + s.getKey(), e.getKey() + "=" + e.getValue().asText())));
            s.getValue().path("command").forEach(a -> out.add(Map.entry("compose " + s.getKey(), a.asText())));
        });
        try (var files = Files.list(ROOT.resolve("deploy/docker"))) {
            for (Path f : files.toList()) {
                out.add(Map.entry(ROOT.relativize(f).toString(), Files.readString(f)));
            }
        }
        return out;
    }

    @Test
    void neitherTheChartNorComposeNorAnImageOverridesTheProfile() throws Exception {
        var settings = deployedSettings();
        assertFalse(settings.isEmpty());
        assertTrue(settings.stream().anyMatch(s -> s.getValue().startsWith("ALICE_KAFKA_BOOTSTRAP=")), "the settings were read: " + settings.size());
        for (String key : RunProfile.settings().keySet()) {
            var env = Pattern.compile("(^|[^A-Z0-9_])" + envName(key) + "\\b");
            for (var s : settings) {
                assertFalse(env.matcher(s.getValue()).find() || s.getValue().contains("-D" + key + "="),
                        s.getKey() + " sets " + key + ", a key of the run profile: " + s.getValue());
            }
        }
    }

    @Test
    void noServiceOverridesTheProfileInItsOwnProperties() throws Exception {
        try (var dirs = Files.list(ROOT.resolve("services"))) {
            for (Path dir : dirs.toList()) {
                for (String line : Files.readAllLines(dir.resolve("src/main/resources/application.properties"))) {
                    String key = line.split("=", 2)[0].strip();
                    assertFalse(RunProfile.settings().containsKey(key), dir.getFileName() + " sets " + key + " outside a test profile: " + line);
                }
            }
        }
    }
}
