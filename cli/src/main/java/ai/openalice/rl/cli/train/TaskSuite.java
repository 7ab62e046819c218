package ai.openalice.rl.cli.train;

import ai.openalice.rl.cli.TaskFiles;
import ai.openalice.rl.cli.suite.TinySwe;
import ai.openalice.rl.events.Envelope;
import ai.openalice.rl.events.EventCodec;
import ai.openalice.rl.events.TaskSubmitted;
import ai.openalice.rl.events.Topic;
import ai.openalice.rl.events.task.Split;
import ai.openalice.rl.events.task.Task;
import ai.openalice.rl.events.task.TaskReader;
import ai.openalice.rl.events.task.WorkspaceSpec;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Properties;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringSerializer;

/**
 * The tasks of a run, fixed on its first run in {@code <state>/suite}: {@code train.jsonl} and
 * {@code heldout.jsonl} (the held-out probes' tasks, {@code split: eval}) and {@code source} (where
 * they came from). Either tiny-swe generated here ({@code --tasks N}) or the user's task file
 * ({@code --tasks FILE}): its {@code split: eval} tasks are held out, or — when it has none —
 * {@code --heldout} of its tasks drawn by the seed, never more than a quarter of the file.
 */
final class TaskSuite {
    static final String SOURCE = "source";

    private TaskSuite() {}

    /** What {@code prepare} did, for the run's first lines; {@code dataset} names the tasks' source on tasks.submitted. */
    record Prepared(String dataset, int train, int heldOut, String message) {}

    /** Why a task file cannot be trained on; the message names the lines or tasks. */
    static final class Refused extends Exception {
        Refused(String message) {
            super(message);
        }
    }

    /** Whether {@code spec} (the value of {@code --tasks}) is a count of tiny-swe tasks to generate rather than a file. */
    static boolean isCount(String spec) {
        return spec.matches("\\d+");
    }

    /**
     * Writes the suite on the first run; on a later run checks that {@code spec} names the same
     * source (a run's tasks never change under it: another file needs another {@code --state}).
     *
     * @param needsPatches the run imitates the oracle (warm start, {@code --oracle-rl}): every
     *     training task needs its gold {@code patch}
     * @param localSandbox tasks run in bubblewrap, which cannot run a container image
     * @param mirrors the git mirrors folder tasks without a workspace resolve in (null: none given)
     */
    static Prepared prepare(Path suite, String spec, boolean specGiven, int heldOut, long seed, boolean needsPatches, boolean localSandbox,
            Path mirrors) throws IOException, Refused {
        String source = isCount(spec) ? "tiny-swe " + spec + " " + heldOut + " " + seed : Path.of(spec).toAbsolutePath().normalize().toString();
        Path recorded = suite.resolve(SOURCE);
        if (Files.exists(suite.resolve("train.jsonl"))) {
            String was = Files.exists(recorded) ? Files.readString(recorded).strip() : "tiny-swe";
            if (specGiven && !was.equals(source) && !(isCount(spec) && was.startsWith("tiny-swe"))) {
                throw new Refused("--tasks " + spec + ": this state folder trains on " + was + " (fixed on its first run); give another --state"
                        + " to train on another task file");
            }
            return new Prepared(was.startsWith("tiny-swe") ? "tiny-swe" : "file:" + Path.of(was).getFileName(), lines(suite.resolve("train.jsonl")),
                    lines(suite.resolve("heldout.jsonl")), null);
        }
        if (isCount(spec)) {
            var w = TinySwe.generate(suite, Integer.parseInt(spec), heldOut, seed);
            Files.writeString(recorded, source + "\n");
            return new Prepared("tiny-swe", w.trainCount(), w.heldOutCount(),
                    String.format("generated tiny-swe: %d training and %d held-out tasks in %s", w.trainCount(), w.heldOutCount(), suite));
        }
        return fromFile(suite, Path.of(spec), heldOut, seed, needsPatches, localSandbox, mirrors, source);
    }

    private static Prepared fromFile(Path suite, Path file, int heldOut, long seed, boolean needsPatches, boolean localSandbox, Path mirrors,
            String source) throws IOException, Refused {
        List<Task> tasks = read(file);
        var train = new ArrayList<Task>();
        var held = new ArrayList<Task>();
        for (Task t : tasks) {
            (t.split() == Split.EVAL ? held : train).add(t);
        }
        String how = held.isEmpty() ? "" : "its " + held.size() + " split=eval task(s)";
        if (held.isEmpty() && heldOut > 0) {
            int n = Math.min(heldOut, train.size() / 4);
            Collections.shuffle(train, new Random(seed));
            held.addAll(train.subList(0, n));
            train.subList(0, n).clear();
            how = n + " task(s) drawn with seed " + seed + (n < heldOut ? " (at most a quarter of the file)" : "");
        }
        if (train.isEmpty()) {
            throw new Refused("--tasks " + file + ": no training task (every task is split=eval)");
        }
        check(file, train, held, needsPatches, localSandbox, mirrors);
        Files.createDirectories(suite);
        write(suite.resolve("train.jsonl"), train, false);
        write(suite.resolve("heldout.jsonl"), held, true);
        Files.writeString(suite.resolve(SOURCE), source + "\n");
        return new Prepared("file:" + file.getFileName(), train.size(), held.size(), String.format("tasks from %s: %d training, %d held out%s",
                file, train.size(), held.size(), held.isEmpty() ? " (no held-out probes)" : " (" + how + ")"));
    }

    /** Every line valid, or the file is refused naming each bad line (a run must not silently train on part of what was asked). */
    private static List<Task> read(Path file) throws Refused {
        if (!Files.isRegularFile(file)) {
            throw new Refused("--tasks " + file + ": no such file (a number generates tiny-swe tasks; a path names a JSONL task file,"
                    + " docs/task-format.md)");
        }
        List<TaskReader.Line> lines;
        try {
            lines = TaskReader.read(file);
        } catch (UncheckedIOException e) {
            throw new Refused("--tasks: " + e.getMessage());
        }
        var tasks = new ArrayList<Task>();
        var bad = new StringBuilder();
        for (var line : lines) {
            switch (line) {
                case TaskReader.Line.Valid v -> tasks.add(v.task());
                case TaskReader.Line.Invalid inv -> inv.errors().forEach(e -> bad.append('\n').append(file).append(':').append(inv.number())
                        .append(": ").append(e));
            }
        }
        if (!bad.isEmpty()) {
            throw new Refused("--tasks " + file + " has invalid lines (fix them, or check with `alice-rl tasks validate`):" + bad);
        }
        if (tasks.isEmpty()) {
            throw new Refused("--tasks " + file + ": no task in it");
        }
        return tasks;
    }

    /** What the run's settings cannot serve, found before anything starts. */
    private static void check(Path file, List<Task> train, List<Task> held, boolean needsPatches, boolean localSandbox, Path mirrors)
            throws Refused {
        var all = new ArrayList<>(train);
        all.addAll(held);
        for (Task t : all) {
            if (localSandbox && t.workspace() instanceof WorkspaceSpec.Image) {
                throw new Refused("--tasks " + file + ": task " + t.instanceId() + " runs in a container image, which the local sandbox cannot"
                        + " run: use --sandbox kubernetes");
            }
            if (t.workspace() instanceof WorkspaceSpec.Mirror m) {
                if (mirrors == null) {
                    throw new Refused("--tasks " + file + ": task " + t.instanceId() + " has no workspace and resolves to a git mirror of "
                            + m.repo() + ": give --mirrors DIR (the folder holding <owner>__<name> clones)");
                }
                if (!Files.isDirectory(Path.of(m.resolve(mirrors).path()))) {
                    throw new Refused("--tasks " + file + ": task " + t.instanceId() + " needs the mirror " + m.resolve(mirrors).path()
                            + ", which does not exist (git clone --mirror https://github.com/" + m.repo() + " there)");
                }
            }
            String local = TaskFiles.localPath(t.workspace());
            if (local != null && !Files.exists(Path.of(local))) {
                throw new Refused("--tasks " + file + ": task " + t.instanceId() + "'s workspace " + local + " does not exist");
            }
        }
        if (needsPatches) {
            var missing = train.stream().filter(t -> t.patch() == null || t.patch().isBlank()).map(Task::instanceId).toList();
            if (!missing.isEmpty()) {
                throw new Refused("--tasks " + file + ": the warm start (and --oracle-rl) replays gold patches, and " + missing.size()
                        + " training task(s) have none, e.g. " + missing.getFirst() + ": leave out --warm-start-steps, or add their patch");
            }
        }
    }

    private static void write(Path to, List<Task> tasks, boolean heldOut) throws IOException {
        var out = new StringBuilder();
        for (Task t : tasks) {
            ObjectNode line = TaskFiles.portable(t);
            if (heldOut) {
                line.put("split", Split.EVAL.wire());
            }
            out.append(EventCodec.mapper().writeValueAsString(line)).append('\n');
        }
        Files.writeString(to, out);
    }

    private static int lines(Path file) throws IOException {
        return Files.exists(file) ? (int) Files.readAllLines(file).stream().filter(l -> !l.isBlank()).count() : 0;
    }

    /** A suite line as it is published: a workspace path (tiny-swe's are relative to the suite) made absolute; images and mirrors as they are. */
    static ObjectNode published(String line, Path suite) throws IOException {
        var task = (ObjectNode) EventCodec.mapper().readTree(line);
        if (task.get("workspace") instanceof ObjectNode ws && ws.hasNonNull("path")) {
            ws.put("path", suite.resolve(ws.get("path").asText()).toString());
        }
        return task;
    }

    /** Publishes the suite (train and held-out) to tasks.submitted; a resubmitted task changes nothing. Returns the held-out ids. */
    static List<String> submit(String bootstrap, Properties client, Path suite, String dataset) throws Exception {
        var props = new Properties();
        props.putAll(client);
        props.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        props.put(ProducerConfig.ACKS_CONFIG, "all");
        var held = new ArrayList<String>();
        try (var p = new KafkaProducer<>(props, new StringSerializer(), new ByteArraySerializer())) {
            for (String file : List.of("train.jsonl", "heldout.jsonl")) {
                for (String line : Files.readAllLines(suite.resolve(file))) {
                    if (line.isBlank()) {
                        continue;
                    }
                    var task = published(line, suite);
                    if (file.startsWith("heldout")) {
                        held.add(task.get("instance_id").asText());
                    }
                    var env = Envelope.of(new TaskSubmitted(dataset, task, false, null));
                    p.send(new ProducerRecord<>(Topic.TASKS_SUBMITTED.topicName(), env.key(), EventCodec.encode(env))).get(60, TimeUnit.SECONDS);
                }
            }
        }
        return held;
    }
}
