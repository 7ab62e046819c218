package ai.openalice.rl.model.learner;

import ai.openalice.rl.events.Turn;
import java.util.List;
import java.util.UUID;

/**
 * One trajectory to learn from: its turns (token-exact, with the sampling log-probs) and its
 * advantage (ignored in SFT) — one for the episode, or one per turn ({@code turnAdvantages}, e.g.
 * GiGPO), which then wins.
 */
public record Sample(UUID rolloutId, List<Turn> turns, double advantage, double[] turnAdvantages) {
    public Sample {
        turns = List.copyOf(turns);
        if (turnAdvantages != null && turnAdvantages.length != turns.size()) {
            throw new IllegalArgumentException(rolloutId + ": " + turnAdvantages.length + " turn advantages for " + turns.size() + " turns");
        }
        turnAdvantages = turnAdvantages == null ? null : turnAdvantages.clone();
    }

    public Sample(UUID rolloutId, List<Turn> turns, double advantage) {
        this(rolloutId, turns, advantage, null);
    }

    /** The advantage of turn {@code t}'s completion tokens. */
    public double advantageOf(int t) {
        return turnAdvantages == null ? advantage : turnAdvantages[t];
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
