package ai.openalice.rl.runner.service;

import ai.openalice.rl.agent.loop.Episode;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;

/**
 * A sandbox that dies under an episode — its pod deleted or evicted, its node lost — is the back
 * end's doing, not the policy's and not the rollout's: the episode is played again from the start
 * in a new sandbox, up to a bound, instead of ending in an infrastructure error that spends one of
 * the rollout's attempts (the dispatcher gives a rollout up after its last). Any other failure
 * (a sandbox that cannot start, the policy server away) is someone else's to wait out or count,
 * and a runner that is stopping plays nothing again.
 */
final class SandboxDeaths {
    private SandboxDeaths() {}

    /** What to do about each death that is played again: {@code n} counts them from 1. */
    interface OnDeath {
        void died(Episode died, int n);
    }

    static Episode rerun(Supplier<Episode> episode, int retries, BooleanSupplier stopping, OnDeath onDeath) {
        for (int n = 1; ; n++) {
            Episode e = episode.get();
            if (!e.sandboxDied() || n > retries || stopping.getAsBoolean()) {
                return e;
            }
            onDeath.died(e, n);
        }
    }
}
