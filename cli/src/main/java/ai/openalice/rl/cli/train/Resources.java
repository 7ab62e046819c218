package ai.openalice.rl.cli.train;

import ai.openalice.rl.events.EventCodec;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.time.Duration;
import java.util.Map;
import java.util.stream.DoubleStream;

/**
 * What a run holds, once a minute, as one record in {@code <state>/resources.jsonl}: each service's
 * resident memory (VmRSS from {@code /proc}), its JVM heap in use (the sum of
 * {@code jvm_memory_used_bytes{area="heap"}} on its {@code /q/metrics}), the run's own Kafka broker's
 * resident memory, the database's size ({@code pg_database_size}) and the rollouts scored so far
 * ({@code rolloutsScored}: the trainer's ledger, one row per rollout it received, never pruned —
 * the dispatcher's own counts cover only its history window) —
 * so that a run of days shows whether anything grows ({@code alice-rl train report} plots it,
 * {@code bench soak} fits its slope). A value that cannot be read this time is left out, never 0.
 */
final class Resources {
    static final Duration EVERY = Duration.ofMinutes(1);
    private final Supervisor services;
    private final Path state;
    private final String jdbcUrl;
    private final String user;
    private final String password;
    private long last;

    Resources(Supervisor services, Path state, String jdbcUrl, String user, String password) {
        this.services = services;
        this.state = state;
        this.jdbcUrl = jdbcUrl;
        this.user = user;
        this.password = password;
    }

    /** Samples when a minute has passed since the last sample. */
    void maybeSample(long rolloutsScored) throws IOException {
        long now = System.currentTimeMillis();
        if (now - last < EVERY.toMillis()) {
            return;
        }
        last = now;
        ObjectNode rec = EventCodec.mapper().createObjectNode().put("t", now).put("rolloutsScored", rolloutsScored);
        Long db = databaseBytes();
        if (db != null) {
            rec.put("dbBytes", db);
        }
        ObjectNode rss = rec.putObject("rss");
        ObjectNode heap = rec.putObject("heap");
        for (Map.Entry<String, Long> e : services.pids().entrySet()) {
            Long r = rss(e.getValue());
            if (r != null) {
                rss.put(e.getKey(), r);
            }
            try {
                Long h = heapUsed(services.get(e.getKey(), "/q/metrics"));
                if (h != null) {
                    heap.put(e.getKey(), h);
                }
            } catch (Exception busyOrRestarting) {
                // left out this minute
            }
        }
        Long broker = brokerRss();
        if (broker != null) {
            rss.put("kafka", broker);
        }
        Files.writeString(state.resolve("resources.jsonl"), rec + "\n", StandardOpenOption.CREATE, StandardOpenOption.APPEND);
    }

    private Long databaseBytes() {
        try (var c = DriverManager.getConnection(jdbcUrl, user, password); var st = c.createStatement();
                var rs = st.executeQuery("SELECT pg_database_size(current_database())")) {
            return rs.next() ? rs.getLong(1) : null;
        } catch (SQLException e) {
            return null;
        }
    }

    /** The broker {@code alice-rl train} started (dev/stack keeps its pid in the state folder); null for an external one. */
    private Long brokerRss() {
        Path pid = state.resolve("stack/kafka/kafka.pid");
        try {
            return Files.exists(pid) ? rss(Long.parseLong(Files.readString(pid).strip())) : null;
        } catch (IOException | NumberFormatException e) {
            return null;
        }
    }

    /** Resident set size in bytes of a live process, from {@code /proc/PID/status}; null when it is gone. */
    static Long rss(long pid) {
        try {
            return rssOf(Files.readString(Path.of("/proc", Long.toString(pid), "status")));
        } catch (IOException gone) {
            return null;
        }
    }

    /** VmRSS of a {@code /proc/PID/status} text, in bytes (the kernel writes kB). */
    static Long rssOf(String status) {
        for (String line : status.split("\n")) {
            if (line.startsWith("VmRSS:")) {
                return Long.parseLong(line.substring(6).strip().split("\\s+")[0]) * 1024;
            }
        }
        return null;
    }

    /** The value of an unlabelled gauge {@code name} in a Prometheus text exposition; null when absent. */
    static Double gauge(String prometheus, String name) {
        var first = values(prometheus, name).findFirst();
        return first.isPresent() ? first.getAsDouble() : null;
    }

    /** The sum of a metric over all its labels in a Prometheus text exposition; 0 when absent (a counter not yet counted). */
    static double sum(String prometheus, String name) {
        return values(prometheus, name).sum();
    }

    /** The values of every sample of metric {@code name} (exactly that name, with or without labels), in order. */
    private static DoubleStream values(String prometheus, String name) {
        return prometheus.lines().filter(line -> line.startsWith(name + " ") || line.startsWith(name + "{"))
                .mapToDouble(line -> Double.parseDouble(line.substring(line.startsWith(name + "{") ? line.lastIndexOf('}') + 1 : name.length())
                        .strip().split("\\s+")[0]));
    }

    /** The heap in use of a Prometheus text exposition: the sum of {@code jvm_memory_used_bytes} over the heap's pools; null when absent. */
    static Long heapUsed(String prometheus) {
        double sum = 0;
        boolean found = false;
        for (String line : prometheus.split("\n")) {
            if (line.startsWith("jvm_memory_used_bytes{") && line.contains("area=\"heap\"")) {
                sum += Double.parseDouble(line.substring(line.lastIndexOf('}') + 1).strip().split("\\s+")[0]);
                found = true;
            }
        }
        return found ? (long) sum : null;
    }
}
