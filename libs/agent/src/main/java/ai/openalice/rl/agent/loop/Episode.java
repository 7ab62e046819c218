package ai.openalice.rl.agent.loop;

import ai.openalice.rl.events.RolloutCompleted;
import ai.openalice.rl.events.Termination;
import ai.openalice.rl.events.Trajectory;
import ai.openalice.rl.sandbox.SandboxException;

/**
 * A finished episode: its turns, why it ended, the infrastructure failure if any, the patch, its
 * counts and timings, and — when the sandbox failed — what the sandbox said ({@code sandboxFailure},
 * else null): a sandbox that died under the episode is the back end's doing, and the runner may
 * play the episode again rather than spend one of the rollout's attempts.
 */
public record Episode(Trajectory trajectory, Termination termination, RolloutCompleted.Failure error, String patch,
        RolloutCompleted.Stats stats, SandboxException.Reason sandboxFailure) {

    public Episode(Trajectory trajectory, Termination termination, RolloutCompleted.Failure error, String patch, RolloutCompleted.Stats stats) {
        this(trajectory, termination, error, patch, stats, null);
    }

    /** Whether the sandbox died or vanished under the episode (a pod lost, a node gone). */
    public boolean sandboxDied() {
        return sandboxFailure == SandboxException.Reason.SANDBOX_DIED;
    }
}
