package ai.openalice.rl.harness;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.TreeMap;
import java.util.regex.Pattern;

/**
 * The JDKs a host has ({@code /usr/lib/jvm/*}, each read from its {@code release} file, symlinked
 * duplicates counted once), and the one a task asks for: the same major version, else the nearest
 * newer one (a JDK compiles and runs older sources with {@code --release}/{@code -source} as far
 * back as it supports); none when every JDK is older.
 */
public final class Toolchains {
    private static final Pattern VERSION = Pattern.compile("^JAVA_VERSION=\"(\\d+)(?:\\.(\\d+))?[^\"]*\"", Pattern.MULTILINE);

    /** A JDK: its home and major version. */
    public record Jdk(Path home, int major) {}

    /** The JDK chosen for a request, and whether it is the version asked for. */
    public record Choice(Jdk jdk, int asked) {
        public boolean exact() {
            return jdk.major() == asked;
        }

        /** For the verdict: what ran the tests. */
        public String describe() {
            return "java " + jdk.major() + " at " + jdk.home() + (exact() ? "" : " (java " + asked + " asked; the nearest newer this host has)");
        }
    }

    private final List<Jdk> jdks;

    Toolchains(List<Jdk> jdks) {
        this.jdks = jdks.stream().sorted(Comparator.comparingInt(Jdk::major)).toList();
    }

    /** The JDKs under {@code root} (the host's: {@code /usr/lib/jvm}). */
    public static Toolchains scan(Path root) {
        var byHome = new TreeMap<Path, Jdk>();
        if (Files.isDirectory(root)) {
            try (var dirs = Files.list(root)) {
                for (Path d : dirs.toList()) {
                    Path release = d.resolve("release");
                    if (Files.isDirectory(d) && Files.isRegularFile(release) && Files.isExecutable(d.resolve("bin/java"))) {
                        var m = VERSION.matcher(Files.readString(release));
                        if (m.find()) {
                            int major = Integer.parseInt(m.group(1));
                            major = major == 1 && m.group(2) != null ? Integer.parseInt(m.group(2)) : major; // 1.8 → 8
                            byHome.putIfAbsent(d.toRealPath(), new Jdk(d.toRealPath(), major));
                        }
                    }
                }
            } catch (IOException e) {
                return new Toolchains(List.of());
            }
        }
        return new Toolchains(new ArrayList<>(byHome.values()));
    }

    public List<Jdk> jdks() {
        return jdks;
    }

    /** The JDK for {@code major}: that version, else the nearest newer; empty when the host has none that fits. */
    public Optional<Choice> java(int major) {
        return jdks.stream().filter(j -> j.major() >= major).findFirst().map(j -> new Choice(j, major));
    }
}
