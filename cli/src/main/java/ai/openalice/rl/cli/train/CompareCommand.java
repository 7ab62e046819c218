package ai.openalice.rl.cli.train;

import ai.openalice.rl.events.EventCodec;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code alice-rl compare --base A.jsonl --new B.jsonl}: whether one checkpoint solves more tasks
 * than another, from the episode files {@code alice-rl rollout --out} writes. The difference is
 * paired by task — each task's pass rate under the new checkpoint minus its rate under the base —
 * so the spread between easy and hard tasks, which both sides share, does not widen the interval.
 */
@Command(name = "compare", mixinStandardHelpOptions = true,
        description = "Compare two checkpoints' pass@1 from episode files of alice-rl rollout --out: each side's pass@1 and the"
                + " difference paired by task, each ± its 95%% interval (tasks as the unit). Exit 0, or 2 for bad input.")
public final class CompareCommand implements Callable<Integer> {
    @Spec
    CommandSpec spec;

    @Option(names = "--base", required = true, split = ",", paramLabel = "FILE", description = "Episode files of the base checkpoint (comma-separated or repeated).")
    List<Path> base;

    @Option(names = "--new", required = true, split = ",", paramLabel = "FILE", description = "Episode files of the checkpoint compared with it.")
    List<Path> candidate;

    /** Solved and played episodes of one task. */
    record Count(int solved, int episodes) {
        double rate() {
            return (double) solved / episodes;
        }
    }

    /** Each side's pass@1 over the shared tasks and the paired difference, each as {mean, half-width}. */
    record Result(int tasks, int missing, double[] base, double[] candidate, double[] difference) {}

    @Override
    public Integer call() {
        PrintWriter out = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        Map<String, Count> a;
        Map<String, Count> b;
        try {
            a = read(base);
            b = read(candidate);
        } catch (IOException | IllegalArgumentException e) {
            err.println(e.getMessage());
            return RolloutCommand.BAD_INPUT;
        }
        Result r = compare(a, b);
        if (r.tasks() < 2) {
            err.println("the two sides share " + r.tasks() + " task(s); a paired comparison needs at least 2");
            return RolloutCommand.BAD_INPUT;
        }
        out.printf("%d tasks in both%s%n", r.tasks(), r.missing() == 0 ? "" : " (" + r.missing() + " in only one side, left out)");
        out.printf("base: pass@1 %.3f ± %.3f (%d episodes)%n", r.base()[0], r.base()[1], episodes(a));
        out.printf("new:  pass@1 %.3f ± %.3f (%d episodes)%n", r.candidate()[0], r.candidate()[1], episodes(b));
        double lo = r.difference()[0] - r.difference()[1];
        double hi = r.difference()[0] + r.difference()[1];
        out.printf("new − base, paired by task: %+.3f ± %.3f (95%%, tasks as the unit): %s%n", r.difference()[0], r.difference()[1],
                lo > 0 ? "better" : hi < 0 ? "worse" : "not separated");
        return 0;
    }

    static Result compare(Map<String, Count> a, Map<String, Count> b) {
        var ra = new ArrayList<Double>();
        var rb = new ArrayList<Double>();
        var diff = new ArrayList<Double>();
        int missing = 0;
        for (var e : a.entrySet()) {
            Count other = b.get(e.getKey());
            if (other == null) {
                missing++;
                continue;
            }
            ra.add(e.getValue().rate());
            rb.add(other.rate());
            diff.add(other.rate() - e.getValue().rate());
        }
        missing += (int) b.keySet().stream().filter(k -> !a.containsKey(k)).count();
        return new Result(diff.size(), missing, TaskInterval.of(ra), TaskInterval.of(rb), TaskInterval.of(diff));
    }

    /** Per-task counts over every episode of the files, in the order tasks first appear. */
    static Map<String, Count> read(List<Path> files) throws IOException {
        var counts = new LinkedHashMap<String, Count>();
        for (Path f : files) {
            try (BufferedReader in = Files.newBufferedReader(f, StandardCharsets.UTF_8)) {
                String line;
                int n = 0;
                while ((line = in.readLine()) != null) {
                    n++;
                    if (line.isBlank()) {
                        continue;
                    }
                    JsonNode ep;
                    try {
                        ep = EventCodec.mapper().readTree(line);
                    } catch (JsonProcessingException e) {
                        throw new IllegalArgumentException(f + ":" + n + ": not JSON: " + e.getOriginalMessage());
                    }
                    String task = ep.path("task").asText("");
                    String status = ep.path("status").asText("");
                    if (task.isEmpty() || status.isEmpty()) {
                        throw new IllegalArgumentException(f + ":" + n + ": an episode needs \"task\" and \"status\" (as alice-rl rollout --out writes)");
                    }
                    boolean solved = status.equals("resolved");
                    counts.merge(task, new Count(solved ? 1 : 0, 1), (x, y) -> new Count(x.solved() + y.solved(), x.episodes() + y.episodes()));
                }
            } catch (NoSuchFileException e) {
                throw new IllegalArgumentException("no such episode file: " + f);
            }
        }
        if (counts.isEmpty()) {
            throw new IllegalArgumentException("no episodes in " + files);
        }
        return counts;
    }

    private static int episodes(Map<String, Count> m) {
        return m.values().stream().mapToInt(Count::episodes).sum();
    }
}
