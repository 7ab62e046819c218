package ai.openalice.rl.cli.train;

import ai.openalice.rl.events.EventCodec;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.TreeMap;

/**
 * The live view of a run: every 5 s an update (step, version, rollouts/s, reward, r_exec, held-out
 * pass@1, loss, staleness, elapsed and remaining time; shown by {@link StatusView}: a block redrawn in
 * place on a terminal, a line otherwise) and one JSON record in {@code <state>/metrics.jsonl}; held-out probes
 * ({@code POST /evals} on the dispatcher, K rollouts per held-out task at the current version)
 * every N steps, their results in {@code <state>/probes.jsonl}; once a minute what the run holds
 * ({@link Resources}: memory of each service, database size) in {@code <state>/resources.jsonl}.
 * With a time limit every phase ends in time for the final evaluation ({@link FinalEvaluation}),
 * which is shown as it goes and cut at the limit.
 */
final class Progress {
    private final Supervisor s;
    private final Path state;
    private final List<String> heldOut;
    private final int probeK;
    private final StatusView view;
    private final TrainerNotes trainerNotes;
    private final Resources resources;
    /** {@code --mlflow}: the figures only this process knows, added to the trainer's MLflow run. */
    private final TrackedRun tracked;
    private String probeRun;
    private long probeVersion = -1;
    private long lastProbeStep = -1;
    private Double lastPass1;
    private Double lastCi;
    /** A probe finished since the last record (MLflow gets each result once, at the step it is seen). */
    private boolean newPass1;
    private long lastPass1Version = -1;
    /** Rollouts per second over the last minute: between two 5-s samples the rate jumps between 0 and a burst. */
    private final Throughput throughput = new Throughput(60_000);
    private final StallWatch stall = new StallWatch();
    private boolean diskPaused;
    /** The run's time limit (null: none), how long it is, and {@code --final-eval} (null: every held-out task). */
    private Instant end;
    private Duration budget;
    private Integer finalAsked;
    /** When the running probe started, and the pace the last finished one kept: wall seconds per episode. */
    private long probeStartedNanos;
    private Double probeSecondsPerEpisode;
    private double lastRate;
    /** The runner's mean episode so far, in seconds (0 before its first). */
    private double episodeSeconds;

    Progress(Supervisor s, Path state, List<String> heldOut, int probeK, Resources resources, TrackedRun tracked, PrintWriter out) {
        this.s = s;
        this.tracked = tracked;
        this.resources = resources;
        this.state = state;
        this.heldOut = List.copyOf(heldOut);
        this.probeK = probeK;
        this.view = new StatusView(out, StatusView.stdoutIsTerminal());
        this.trainerNotes = new TrainerNotes(view);
    }

    /** The trainer's step now. */
    long step() throws Exception {
        return EventCodec.mapper().readTree(s.get("trainer", "/status")).path("step").asLong();
    }

    /**
     * The run's time limit: it ends at {@code end} (null: no limit), {@code budget} after the phases
     * began; the final evaluation takes {@code finalAsked} held-out tasks (null: all).
     */
    void limit(Instant end, Duration budget, Integer finalAsked) {
        this.end = end;
        this.budget = budget;
        this.finalAsked = finalAsked;
    }

    /** When the phase under way must stop for the final evaluation to fit: the limit less its reserve; null without a limit. */
    Instant phaseEnd() {
        if (end == null) {
            return null;
        }
        int episodes = FinalEvaluation.plan(heldOut, probeK, finalAsked, null, FinalEvaluation.Pace.UNKNOWN).episodes();
        return end.minus(FinalEvaluation.reserve(episodes, pace(), budget));
    }

    /** The pace seen so far: the last probe's wall seconds per episode, else the rate rollouts were scored at; the runner's mean episode. */
    FinalEvaluation.Pace pace() {
        return new FinalEvaluation.Pace(probeSecondsPerEpisode != null ? probeSecondsPerEpisode : lastRate > 0 ? 1 / lastRate : null, episodeSeconds);
    }

    /**
     * Follows the run until the trainer reaches {@code untilStep} (0: no step goal) or the phase
     * must end for the time limit ({@link #phaseEnd}); probes every {@code probeEvery} steps (0: never).
     */
    void run(long untilStep, int probeEvery, String phase) throws Exception {
        var started = Instant.now();
        long fromStep = -1;
        view.newBlock(); // the caller may have printed since the last phase
        while (true) {
            CtrlC.check();
            Instant until = phaseEnd();
            for (String restarted : s.restartFailed(5, 3)) {
                view.note(String.format("[%s] restarted %s; see %s", phase, restarted, state.resolve("logs")));
            }
            JsonNode trainer;
            JsonNode stats;
            try {
                trainer = EventCodec.mapper().readTree(s.get("trainer", "/status"));
                stats = EventCodec.mapper().readTree(s.get("task-dispatcher", "/stats"));
            } catch (IOException | IllegalStateException e) {
                // a busy service (a long training step on two cores) may answer late: say so and look again
                view.note(String.format("[%s] (status not available this time: %s)", phase,
                        e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage()));
                Thread.sleep(5000);
                continue;
            }
            long step = trainer.path("step").asLong();
            long version = trainer.path("policyVersion").asLong();
            pollProbe();
            if (probeEvery > 0 && probeRun == null && step > 0 && step - lastProbeStep >= probeEvery) {
                startProbe(version);
                lastProbeStep = step;
            }
            fromStep = fromStep < 0 ? step : fromStep;
            var now = Instant.now();
            var elapsed = Duration.between(started, now);
            String runner = runnerMetrics();
            record(phase, step, version, trainer, stats, runner, elapsed, StatusView.remaining(now, until, untilStep, fromStep, step, elapsed));
            watchDisk(phase, runner);
            trainerNotes.observe(phase, trainer);
            String stalled = stall.observe(System.currentTimeMillis(), step, trainer.path("dropped"));
            if (stalled != null) {
                view.note("[" + phase + "] " + stalled);
            }
            resources.maybeSample(scored(trainer, stats));
            if ((untilStep > 0 && step >= untilStep && committed(trainer, untilStep)) || (until != null && Instant.now().isAfter(until))) {
                return;
            }
            Thread.sleep(5000);
        }
    }

    /**
     * Whether the checkpoint that holds step {@code untilStep} is committed, when one is due at or
     * before it: the trainer counts a step before it writes that step's checkpoint (a large model's
     * takes a minute), and stopping the services in between would lose the step.
     */
    static boolean committed(JsonNode trainer, long untilStep) {
        long every = trainer.path("checkpointEvery").asLong(1);
        long due = untilStep - untilStep % Math.max(1, every);
        return trainer.path("checkpointStep").asLong(due) >= due;
    }

    /** The runner's Prometheus metrics now; null when it does not answer (busy or restarting: look again next time). */
    private String runnerMetrics() {
        try {
            return s.get("sandbox-runner", "/q/metrics");
        } catch (Exception e) {
            return null;
        }
    }

    /** Says on the status line when the runner pauses for a full disk (runner_disk_paused), and when it goes on. */
    private void watchDisk(String phase, String runnerMetrics) {
        if (runnerMetrics == null) {
            return;
        }
        Double paused = Resources.gauge(runnerMetrics, "runner_disk_paused");
        boolean now = paused != null && paused > 0;
        if (now != diskPaused) {
            view.note(now ? String.format("[%s] paused: a disk is full — the runner takes no new rollouts until it has room (%s)", phase,
                    state.resolve("logs/sandbox-runner.log")) : String.format("[%s] the disk has room again; going on", phase));
            diskPaused = now;
        }
    }

    /**
     * The run's last held-out evaluation, at the final version: the tasks {@link FinalEvaluation#plan}
     * chooses for what is left of the time limit, shown as it goes, recorded in {@code probes.jsonl}
     * (with {@code "final": true}) when it ends or when the limit comes — then cut, with what was
     * scored and the reason. Without a limit it is not waited on past {@link FinalEvaluation#UNBOUNDED_WAIT}.
     */
    void finalEvaluation() throws Exception {
        if (heldOut.isEmpty()) {
            return; // the dispatcher refuses an empty evaluation
        }
        var started = Instant.now();
        var plan = FinalEvaluation.plan(heldOut, probeK, finalAsked, end == null ? null : Duration.between(started, end), pace());
        if (plan.tasks().isEmpty()) {
            view.note("[final-eval] none (--final-eval off)");
            return;
        }
        long version = EventCodec.mapper().readTree(s.get("trainer", "/status")).path("policyVersion").asLong();
        if (lastPass1Version == version && plan.tasks().size() == heldOut.size()) {
            view.note("[final-eval] the last probe measured v" + version + " already");
            return;
        }
        view.note(String.format("[final-eval] %d held-out task(s) × %d at v%d%s", plan.tasks().size(), plan.k(), version,
                plan.cut() == null ? "" : " (" + plan.cut() + ")"));
        String run = EventCodec.mapper().readTree(s.post("task-dispatcher", "/evals", evalBody(plan.tasks(), version))).get("evalRunId").asText();
        Instant stop = end != null ? end : started.plus(FinalEvaluation.UNBOUNDED_WAIT);
        while (true) {
            CtrlC.check();
            pollProbe(); // a probe still running from RL is recorded if it ends meanwhile
            JsonNode r = EventCodec.mapper().readTree(s.get("task-dispatcher", "/evals/" + run));
            int failed = r.path("rolloutsFailed").asInt();
            int scored = 0;
            for (JsonNode t : r.path("tasks")) {
                scored += t.path("n").asInt();
            }
            var now = Instant.now();
            view.show(new StatusView.EvalSnapshot(version, plan.tasks().size(), heldOut.size(), plan.k(), scored, failed,
                    r.at("/overall/pass@1").isNumber() ? r.at("/overall/pass@1").asDouble() : null, r.at("/overall/tasks").asInt(),
                    Duration.between(started, now), Duration.between(now, stop)));
            boolean done = r.path("state").asText().equals("done");
            if (done || now.isAfter(stop)) {
                String cut = done ? plan.cut() : String.format("cut at the %s: %d of %d episodes scored", end != null ? "--minutes limit"
                        : "wait of " + FinalEvaluation.UNBOUNDED_WAIT.toMinutes() + " min", scored, plan.episodes());
                ObjectNode rec = probeRecord(r, version, plan.k()).put("final", true).put("heldOut", heldOut.size());
                if (cut != null) {
                    rec.put("cut", cut);
                }
                append("probes.jsonl", rec);
                lastPass1 = r.at("/overall/pass@1").isNumber() ? r.at("/overall/pass@1").asDouble() : null;
                lastCi = rec.path("pass1Ci95").isNumber() ? rec.get("pass1Ci95").asDouble() : null;
                lastPass1Version = version;
                newPass1 = true;
                if (!done) {
                    view.note("[final-eval] " + cut);
                }
                break;
            }
            Thread.sleep(3000);
        }
        JsonNode trainer = EventCodec.mapper().readTree(s.get("trainer", "/status"));
        track(trainer, trainer.path("step").asLong(), new LinkedHashMap<>()); // the result reaches MLflow too, at the step it measured
    }

    private String evalBody(List<String> tasks, long version) {
        var body = EventCodec.mapper().createObjectNode().put("k", probeK).put("policyVersion", version);
        var ids = body.putArray("taskIds");
        tasks.forEach(ids::add);
        return body.toString();
    }

    private void startProbe(long version) throws Exception {
        probeRun = EventCodec.mapper().readTree(s.post("task-dispatcher", "/evals", evalBody(heldOut, version))).get("evalRunId").asText();
        probeVersion = version;
        probeStartedNanos = System.nanoTime();
    }

    private void pollProbe() throws Exception {
        if (probeRun == null) {
            return;
        }
        JsonNode r = EventCodec.mapper().readTree(s.get("task-dispatcher", "/evals/" + probeRun));
        if (r.path("state").asText().equals("done")) {
            lastPass1 = r.at("/overall/pass@1").isNumber() ? r.at("/overall/pass@1").asDouble() : null;
            lastPass1Version = probeVersion;
            ObjectNode rec = probeRecord(r, probeVersion, probeK);
            lastCi = rec.path("pass1Ci95").isNumber() ? rec.get("pass1Ci95").asDouble() : null;
            newPass1 = true;
            append("probes.jsonl", rec);
            probeRun = null;
            probeSecondsPerEpisode = (System.nanoTime() - probeStartedNanos) / 1e9 / Math.max(1, heldOut.size() * probeK);
        }
    }

    /** A line of {@code probes.jsonl}: an evaluation's report at {@code version}, with the per-task interval. */
    private static ObjectNode probeRecord(JsonNode r, long version, int k) {
        ObjectNode rec = EventCodec.mapper().createObjectNode().put("t", System.currentTimeMillis()).put("policyVersion", version)
                .put("k", k).put("tasks", r.at("/overall/tasks").asInt());
        rec.set("overall", r.get("overall"));
        rec.set("perTask", r.get("tasks"));
        double[] ci = TaskInterval.of(r.path("tasks"));
        if (ci != null) {
            rec.put("pass1TaskMean", ci[0]).put("pass1Ci95", ci[1]);
        }
        return rec;
    }

    private void record(String phase, long step, long version, JsonNode trainer, JsonNode stats, String runnerMetrics, Duration elapsed,
            Duration remaining) throws Exception {
        long now = System.currentTimeMillis();
        long scored = scored(trainer, stats);
        double rate = throughput.observe(now, scored);
        lastRate = rate;
        JsonNode last = trainer.path("last");
        ObjectNode rec = EventCodec.mapper().createObjectNode().put("t", now).put("phase", phase).put("step", step).put("policyVersion", version)
                .put("rolloutsScored", scored).put("rolloutsPerSecond", rate).put("inFlight", stats.path("inFlight").asLong());
        for (String f : List.of("loss", "meanReward", "rExecRate", "sPrmMean", "tokens", "computeMs", "waitMs", "step")) {
            if (last.path(f).isNumber()) {
                rec.put("last." + f, last.get(f).asDouble());
            }
        }
        if (lastPass1 != null) {
            rec.put("heldOutPass1", lastPass1).put("heldOutVersion", lastPass1Version);
        }
        if (trainer.path("dropped").isObject()) {
            rec.set("dropped", trainer.get("dropped"));
        }
        if (runnerMetrics != null) {
            // the runner's counts since it started: episodes, and those with a reward-hack attempt (the report's rate)
            double episodes = Resources.sum(runnerMetrics, "runner_episodes_total");
            rec.put("runnerEpisodes", episodes).put("hackRollouts", Resources.sum(runnerMetrics, "runner_rollouts_with_hack_attempts_total"));
            if (episodes > 0) {
                episodeSeconds = (Resources.sum(runnerMetrics, "runner_policy_ms_total") + Resources.sum(runnerMetrics, "runner_tool_ms_total")
                        + Resources.sum(runnerMetrics, "runner_overhead_ms_total")) / episodes / 1000;
            }
        }
        append("metrics.jsonl", rec);
        track(trainer, step, rate, rec);
        view.show(new StatusView.Snapshot(phase, step, version, rate, num(last, "meanReward"), num(last, "rExecRate"), lastPass1, lastCi,
                lastPass1Version, num(last, "loss"), staleness(last.path("staleness")), elapsed, remaining));
    }

    /** The figures only this process knows, to the trainer's MLflow run ({@code --mlflow}) at the trainer's step. */
    private void track(JsonNode trainer, long step, double rate, JsonNode rec) {
        var values = new LinkedHashMap<String, Double>();
        values.put("rollouts_per_second", rate);
        if (rec.path("runnerEpisodes").asDouble() > 0) {
            // the share of the runner's episodes so far with a reward-hack attempt (the report draws it over five minutes)
            values.put("hack_attempt_share", rec.path("hackRollouts").asDouble() / rec.path("runnerEpisodes").asDouble());
        }
        track(trainer, step, values);
    }

    private void track(JsonNode trainer, long step, LinkedHashMap<String, Double> values) {
        if (newPass1 && lastPass1 != null) {
            values.put("held_out_pass1", lastPass1);
            values.put("held_out_pass1_ci95", lastCi);
            values.put("held_out_version", (double) lastPass1Version);
        }
        tracked.observe(trainer, step, values);
        if (trainer.at("/tracking/runId").isTextual()) {
            newPass1 = false;
        }
    }

    private void append(String file, JsonNode rec) throws Exception {
        Files.writeString(state.resolve(file), rec.toString() + "\n", StandardOpenOption.CREATE, StandardOpenOption.APPEND);
    }

    /**
     * Rollouts scored so far: the trainer's ledger keeps a row per rollout for good, while the
     * dispatcher counts only its history window — once that is pruned its count falls, and a rate
     * from it went negative (seen in a soak with a 10-minute window: -3.16 rollouts/s).
     */
    static long scored(JsonNode trainerStatus, JsonNode dispatcherStats) {
        return trainerStatus.path("samples").isNumber() ? trainerStatus.get("samples").asLong() : dispatcherStats.at("/rollouts/scored").asLong();
    }

    /** The trainer's {@code staleness} ({@code {"lag": samples}}) in words; null when it has none. */
    static String staleness(JsonNode byLag) {
        if (!byLag.isObject()) {
            return null;
        }
        var m = new TreeMap<Long, Long>();
        byLag.properties().forEach(e -> m.put(Long.parseLong(e.getKey()), e.getValue().asLong()));
        return StatusView.staleness(m);
    }

    private static Double num(JsonNode n, String f) {
        return n.path(f).isNumber() ? n.get(f).asDouble() : null;
    }
}
