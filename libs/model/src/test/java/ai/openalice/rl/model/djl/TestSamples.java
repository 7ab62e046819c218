package ai.openalice.rl.model.djl;

import ai.openalice.rl.events.Action;
import ai.openalice.rl.events.Turn;
import ai.openalice.rl.model.learner.Sample;
import java.util.List;
import java.util.UUID;

/** A one-turn sample: prompt token 0, completion 5 6 7. */
final class TestSamples {
    private TestSamples() {}

    static Sample sample() {
        return new Sample(UUID.randomUUID(), List.of(new Turn(0, List.of(0), List.of(5, 6, 7), List.of(-2.0, -2.0, -2.0), 0,
                new Action("answer", null, null), "", 0, 0)), 1.0);
    }
}
