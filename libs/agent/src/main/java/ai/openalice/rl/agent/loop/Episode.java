package ai.openalice.rl.agent.loop;

import ai.openalice.rl.events.RolloutCompleted;
import ai.openalice.rl.events.Termination;
import ai.openalice.rl.events.Trajectory;

/** A finished episode: its turns, why it ended, the infrastructure failure if any, the patch, and its counts and timings. */
public record Episode(Trajectory trajectory, Termination termination, RolloutCompleted.Failure error, String patch,
        RolloutCompleted.Stats stats) {}
