package ai.openalice.rl.events;

import java.util.List;

/** The turns of one episode, in order. */
public record Trajectory(List<Turn> turns) {
    public Trajectory {
        turns = List.copyOf(turns);
    }
}
