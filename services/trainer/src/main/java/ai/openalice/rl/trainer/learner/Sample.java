package ai.openalice.rl.trainer.learner;

import ai.openalice.rl.events.Turn;
import java.util.List;
import java.util.UUID;

/** One trajectory to learn from: its turns (token-exact, with the sampling log-probs) and its advantage (ignored in SFT). */
public record Sample(UUID rolloutId, List<Turn> turns, double advantage) {
    public Sample {
        turns = List.copyOf(turns);
    }

    /** Context length the episode used: every prompt delta and completion. */
    public int length() {
        int n = 0;
        for (Turn t : turns) {
            n += t.promptDeltaTokenIds().size() + t.completionTokenIds().size();
        }
        return n;
    }
}
