package ai.openalice.rl.runner.service;

import static org.junit.jupiter.api.Assertions.assertEquals;

import ai.openalice.rl.agent.loop.Episode;
import ai.openalice.rl.events.RolloutCompleted;
import ai.openalice.rl.events.Termination;
import ai.openalice.rl.events.Trajectory;
import ai.openalice.rl.sandbox.SandboxException;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class SandboxDeathsTest {
    static Episode failed(SandboxException.Reason reason) {
        return new Episode(new Trajectory(List.of()), Termination.INFRA_ERROR, new RolloutCompleted.Failure("sandbox", reason + ": gone"), "",
                new RolloutCompleted.Stats(3, 0, 0, 0, 0, 0), reason);
    }

    static final Episode SUBMITTED = new Episode(new Trajectory(List.of()), Termination.SUBMITTED, null, "diff", new RolloutCompleted.Stats(5, 0, 0, 0, 0, 0));
    static final Episode DIED = failed(SandboxException.Reason.SANDBOX_DIED);

    record Run(Episode result, int played, List<Integer> deaths) {}

    static Run run(int retries, boolean stopping, Episode... episodes) {
        var queue = new ArrayDeque<>(List.of(episodes));
        var deaths = new ArrayList<Integer>();
        int[] played = {0};
        Episode result = SandboxDeaths.rerun(() -> {
            played[0]++;
            return queue.removeFirst();
        }, retries, () -> stopping, (died, n) -> deaths.add(n));
        return new Run(result, played[0], deaths);
    }

    @Test
    void anEpisodeWhoseSandboxDiedIsPlayedAgainUpToTheBound() {
        var twice = run(2, false, DIED, DIED, SUBMITTED);
        assertEquals(SUBMITTED, twice.result(), "the third play's episode is the rollout's");
        assertEquals(3, twice.played());
        assertEquals(List.of(1, 2), twice.deaths(), "each death counted");

        var beyond = run(2, false, DIED, DIED, DIED, SUBMITTED);
        assertEquals(DIED, beyond.result(), "past the bound it ends in an infrastructure error (an attempt spent)");
        assertEquals(3, beyond.played());

        assertEquals(1, run(0, false, DIED).played(), "0: never");
        assertEquals(1, run(2, true, DIED).played(), "a runner that is stopping plays nothing again");
    }

    @Test
    void otherFailuresAreNotPlayedAgain() {
        for (var reason : List.of(SandboxException.Reason.START_FAILED, SandboxException.Reason.BACKEND_UNAVAILABLE, SandboxException.Reason.IO)) {
            var r = run(2, false, failed(reason), SUBMITTED);
            assertEquals(1, r.played(), reason.toString());
            assertEquals(reason, r.result().sandboxFailure());
        }
        var policyAway = new Episode(new Trajectory(List.of()), Termination.INFRA_ERROR, new RolloutCompleted.Failure("policy", "unreachable"), "",
                new RolloutCompleted.Stats(0, 0, 0, 0, 0, 0));
        assertEquals(1, run(2, false, policyAway, SUBMITTED).played());
        assertEquals(1, run(2, false, SUBMITTED).played());
    }
}
