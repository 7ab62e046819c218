package ai.openalice.rl.trainer.service;

import ai.openalice.rl.retry.Backoff;
import ai.openalice.rl.servicekit.DiskSpace;
import java.nio.file.Path;
import ai.openalice.rl.tinker.TinkerRejectedException;
import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * What a failure of the training loop means, and the state {@code GET /status} shows of it.
 *
 * <p>A failure of the step itself — the learner given a batch — is judged ({@link #judge}): the
 * Tinker engine refusing the batch (a 4xx naming it, or an error it does not explain, after the
 * client's bounded tries) and a batch the model cannot take (an IllegalArgumentException from the
 * learner) are permanent, and the batch is dropped with the reason; anything else is tried again
 * on the same batch, {@value #TRIES} times in all, then dropped as {@code step_failed}. An engine
 * that is away never reaches here: the client waits for it.
 *
 * <p>A failure before the step — PostgreSQL or the artifact store away while the batch is
 * gathered, or the checkpoint volume under its minimum free space ({@link #noRoom}) — is waited out with full-jitter pauses (1 s doubling to 30 s) for as long as it
 * lasts, said in the log once it starts and once it ends, and on the status as {@code waiting}.
 */
final class StepFailures {
    /** Tries of one batch whose step fails for a reason not known to be permanent. */
    static final int TRIES = 3;
    static final Duration FIRST_PAUSE = Duration.ofSeconds(1);
    static final Duration MAX_PAUSE = Duration.ofSeconds(30);

    /** What to do with the batch: try it again, or drop it, counted under {@code counter}, for {@code reason}. */
    record Verdict(boolean drop, String counter, String reason) {}

    /** The verdict on try {@code attempt} (from 1) of a step that failed with {@code e}. */
    static Verdict judge(RuntimeException e, int attempt) {
        String message = e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage();
        if (e instanceof TinkerRejectedException) {
            return new Verdict(true, "refused", "the Tinker engine refused the batch: " + message);
        }
        if (e instanceof IllegalArgumentException) {
            return new Verdict(true, "step_failed", "the model cannot take the batch: " + message);
        }
        if (attempt >= TRIES) {
            return new Verdict(true, "step_failed", "the step failed " + attempt + " times on this batch: " + message);
        }
        return new Verdict(false, "step_failed", "try " + attempt + " of " + TRIES + " failed: " + message);
    }

    /**
     * Why the next step must wait for room on the checkpoint volume {@code disk} watches (its minimum
     * is {@code trainer.min-free-disk-mib}); null when there is room.
     */
    static String noRoom(DiskSpace disk) {
        Path full = disk.full();
        return full == null ? null : "the checkpoint volume has too little room (" + DiskSpace.describe(full)
                + ", under trainer.min-free-disk-mib): no step until there is room";
    }

    private Backoff pauses;
    private volatile String waiting;
    private volatile Instant waitingSince;
    private volatile Map<String, Object> lastDropped;

    /** The pause before the next try after a failure outside the step, {@code why}; the first one of an outage is logged by the caller. */
    long pauseAfter(String why) {
        if (pauses == null) {
            pauses = Backoff.of(FIRST_PAUSE, MAX_PAUSE);
            waitingSince = Instant.now();
        }
        waiting = why;
        return pauses.nextMillis();
    }

    /** Whether the loop was waiting (the outage is over now). */
    boolean recovered() {
        boolean was = pauses != null;
        pauses = null;
        waiting = null;
        waitingSince = null;
        return was;
    }

    /** Since when the loop has been waiting; null: it is not. */
    Instant waitingSince() {
        return waitingSince;
    }

    /** Records a dropped batch for the status. */
    void dropped(long step, int groups, Verdict v) {
        var d = new LinkedHashMap<String, Object>();
        d.put("step", step);
        d.put("groups", groups);
        d.put("counter", v.counter());
        d.put("reason", v.reason());
        d.put("at", Instant.now().toString());
        lastDropped = d;
    }

    /** {@code waiting} (what the loop waits out, since when) and {@code lastDroppedBatch}, where there are any. */
    Map<String, Object> status() {
        var out = new LinkedHashMap<String, Object>();
        String w = waiting;
        Instant since = waitingSince;
        if (w != null && since != null) {
            out.put("waiting", Map.of("reason", w, "since", since.toString()));
        }
        if (lastDropped != null) {
            out.put("lastDroppedBatch", lastDropped);
        }
        return out;
    }
}
