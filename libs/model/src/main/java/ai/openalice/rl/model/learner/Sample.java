package ai.openalice.rl.model.learner;

import ai.openalice.rl.events.Turn;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.UUID;

/**
 * One trajectory to learn from: its turns (token-exact, with the sampling log-probs) and its
 * advantage (ignored in SFT) — one for the episode, or one per turn ({@code turnAdvantages}, e.g.
 * GiGPO), which then wins. A trajectory whose turns start a new context ({@link Turn#newContext()}:
 * an agent program that rewrote its history) is learned as several sequences, its
 * {@link #segments()}, each with the episode's advantages.
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

    /**
     * The sequences this sample is learned as: one per run of turns that extend one context, split
     * before each turn that starts a new one; each keeps the rollout id and its turns' advantages.
     * This sample itself when no turn starts a new context.
     */
    public List<Sample> segments() {
        var out = new ArrayList<Sample>();
        int start = 0;
        for (int t = 1; t <= turns.size(); t++) {
            if (t == turns.size() || turns.get(t).newContext()) {
                if (start == 0 && t == turns.size()) {
                    return List.of(this);
                }
                out.add(new Sample(rolloutId, turns.subList(start, t), advantage,
                        turnAdvantages == null ? null : Arrays.copyOfRange(turnAdvantages, start, t)));
                start = t;
            }
        }
        return out.isEmpty() ? List.of(this) : List.copyOf(out);
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
