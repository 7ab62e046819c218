package ai.openalice.rl.cli.train;

import com.fasterxml.jackson.databind.JsonNode;

/**
 * The notes the status line gets from the trainer's {@code GET /status} as it changes: the Tinker
 * engine away and back, the trainer waiting to gather a batch and gathering again, each batch a
 * failed step dropped.
 */
final class TrainerNotes {
    private final StatusView view;

    TrainerNotes(StatusView view) {
        this.view = view;
    }

    /** Notes what changed since the last status the trainer gave. */
    void observe(String phase, JsonNode trainer) {
        engine(phase, trainer.path("learner"));
        stepFailures(phase, trainer);
    }

    private boolean engineAway;

    /** Says on the status line when the trainer's Tinker engine goes away (the trainer waits for it) and when it is back. */
    private void engine(String phase, JsonNode learner) {
        boolean away = learner.path("engineAway").asBoolean(false);
        if (away != engineAway) {
            view.note(away ? String.format("[%s] the Tinker engine at %s is away (%s): the trainer waits for it, nothing is given up", phase,
                    learner.path("url").asText(), learner.path("awayReason").asText()) : "[" + phase + "] the Tinker engine is back");
            engineAway = away;
        }
    }

    private String waitingSince;
    private String droppedAt;

    /**
     * Says on the status line when the trainer starts and stops waiting for what it gathers a batch
     * from (PostgreSQL, the artifact store), and each batch a failed step dropped, with the reason.
     */
    private void stepFailures(String phase, JsonNode trainer) {
        JsonNode waiting = trainer.path("waiting");
        String since = waiting.path("since").asText(null);
        if (since != null && !since.equals(waitingSince)) {
            view.note(String.format("[%s] the trainer waits before its next step (%s): trying again with pauses, nothing is given up", phase,
                    waiting.path("reason").asText()));
        } else if (since == null && waitingSince != null) {
            view.note("[" + phase + "] the trainer goes on with its steps");
        }
        waitingSince = since;
        JsonNode dropped = trainer.path("lastDroppedBatch");
        String at = dropped.path("at").asText(null);
        if (at != null && !at.equals(droppedAt)) {
            view.note(String.format("[%s] step %d's batch dropped (%d groups, trainer_dropped_total{reason=\"%s\"}): %s", phase,
                    dropped.path("step").asLong(), dropped.path("groups").asInt(), dropped.path("counter").asText(), dropped.path("reason").asText()));
        }
        droppedAt = at;
    }
}
