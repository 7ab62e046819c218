package ai.openalice.rl.cli.train;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The lines the status gets from the trainer's /status as it changes, each once. */
class TrainerNotesTest {
    private static final ObjectMapper JSON = new ObjectMapper();

    @Test
    void waitingDroppedBatchesAndTheEngineAreSaidOnceWhenTheyChange() throws Exception {
        var text = new StringWriter();
        var notes = new TrainerNotes(new StatusView(new PrintWriter(text), false));
        String waiting = """
                {"learner":{"kind":"djl"},"waiting":{"reason":"Connection refused: localhost/127.0.0.1:5432","since":"2026-12-06T13:00:00Z"}}""";
        String dropped = """
                {"learner":{"kind":"tinker","url":"http://127.0.0.1:8000","engineAway":true,"awayReason":"/api/v1/optim_step answered 503: busy"},
                 "lastDroppedBatch":{"step":7,"groups":2,"counter":"refused","reason":"the Tinker engine refused the batch: 400","at":"2026-12-06T13:01:00Z"}}""";
        for (String status : List.of(waiting, waiting, dropped, dropped, "{\"learner\":{\"kind\":\"tinker\"}}")) {
            notes.observe("rl", JSON.readTree(status));
        }
        assertEquals(List.of(
                "[rl] the trainer waits before its next step (Connection refused: localhost/127.0.0.1:5432): trying again with pauses,"
                        + " nothing is given up",
                "[rl] the Tinker engine at http://127.0.0.1:8000 is away (/api/v1/optim_step answered 503: busy): the trainer waits for it,"
                        + " nothing is given up",
                "[rl] the trainer goes on with its steps",
                "[rl] step 7's batch dropped (2 groups, trainer_dropped_total{reason=\"refused\"}): the Tinker engine refused the batch: 400",
                "[rl] the Tinker engine is back"), text.toString().lines().toList());
    }
}
