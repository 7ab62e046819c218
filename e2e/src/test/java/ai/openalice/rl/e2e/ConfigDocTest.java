package ai.openalice.rl.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaMethod;
import com.tngtech.archunit.core.domain.JavaModifier;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Pattern;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Each service's README configuration table names exactly the keys of its {@code @ConfigMapping}
 * (read from the compiled interface, nested groups included): a key added without a row, or a row
 * left behind by a key that went, fails here. Rows may shorten siblings: {@code `a.b.c` / `.d`}
 * or {@code `a.b.c` / `d`} stand for {@code a.b.c} and {@code a.b.d}.
 */
class ConfigDocTest {
    static final Path ROOT = Path.of("..").toAbsolutePath().normalize();
    static final String CONFIG_MAPPING = "io.smallrye.config.ConfigMapping";
    static final Pattern TICKED = Pattern.compile("`([^`]+)`");

    @ParameterizedTest
    @ValueSource(strings = {"inference", "rubric-prm", "sandbox-runner", "task-dispatcher", "trainer", "verifier"})
    void theReadmesTableNamesEveryKeyOfTheConfigMappingAndNoOther(String service) throws Exception {
        var mapping = mapping(service);
        String prefix = prefix(mapping);
        var keys = keys(mapping);
        assertFalse(keys.isEmpty());
        var documented = documented(Files.readAllLines(ROOT.resolve("services").resolve(service).resolve("README.md")), prefix);
        var missing = new TreeSet<>(keys);
        missing.removeAll(documented);
        var stale = new TreeSet<>(documented);
        stale.removeAll(keys);
        assertEquals(Set.of(), missing, service + "/README.md lacks rows for these keys of " + mapping.getSimpleName());
        assertEquals(Set.of(), stale, service + "/README.md documents keys " + mapping.getSimpleName() + " does not have");
    }

    /** The {@code @ConfigMapping} interface of {@code service}, from its compiled classes. */
    static JavaClass mapping(String service) {
        var classes = new ClassFileImporter().importPath(ROOT.resolve("services").resolve(service).resolve("target/classes"));
        return classes.stream().filter(c -> c.isAnnotatedWith(CONFIG_MAPPING)).findFirst()
                .orElseThrow(() -> new AssertionError(service + " has no @ConfigMapping (is it built?)"));
    }

    static String prefix(JavaClass mapping) {
        return (String) mapping.getAnnotationOfType(CONFIG_MAPPING).get("prefix").orElseThrow();
    }

    /** Every key of {@code mapping}, nested groups included. */
    static Set<String> keys(JavaClass mapping) {
        var keys = new TreeSet<String>();
        collect(mapping, prefix(mapping), keys);
        return keys;
    }

    /** The keys of {@code type} under {@code prefix}: a method per key, a nested interface a group. */
    static void collect(JavaClass type, String prefix, Set<String> out) {
        for (JavaMethod m : type.getMethods()) {
            if (m.getModifiers().contains(JavaModifier.STATIC) || !m.getParameters().isEmpty()
                    || m.getModifiers().contains(JavaModifier.SYNTHETIC) || isDefault(m)) {
                continue;
            }
            String key = prefix + "." + kebab(m.getName());
            JavaClass returned = m.getRawReturnType();
            if (returned.isInterface() && returned.getName().startsWith(type.getPackageName()) && !returned.isAnnotation()) {
                collect(returned, key, out);
            } else {
                out.add(key);
            }
        }
    }

    static boolean isDefault(JavaMethod m) {
        return !m.getModifiers().contains(JavaModifier.ABSTRACT);
    }

    static String kebab(String camel) {
        return camel.replaceAll("([a-z0-9])([A-Z])", "$1-$2").toLowerCase(Locale.ROOT);
    }

    /** The keys under {@code prefix} that the first cells of the README's table rows name. */
    static Set<String> documented(List<String> lines, String prefix) {
        var out = new TreeSet<String>();
        for (String line : lines) {
            if (!line.startsWith("| `")) {
                continue;
            }
            String cell = line.substring(1, line.indexOf('|', 1));
            String parent = null;
            var ticks = TICKED.matcher(cell);
            var tokens = new ArrayList<String>();
            while (ticks.find()) {
                tokens.add(ticks.group(1));
            }
            for (String t : tokens) {
                if (t.startsWith(prefix + ".")) {
                    String key = t.replaceAll("\\.<[^>]+>$", ""); // a map's entries: `prefix.map.<name>`
                    out.add(key);
                    parent = key.substring(0, key.lastIndexOf('.'));
                } else if (parent != null && t.matches("\\.?[a-z][a-z0-9-]*")) {
                    out.add(parent + "." + (t.startsWith(".") ? t.substring(1) : t));
                }
            }
        }
        return out;
    }
}
