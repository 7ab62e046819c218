package ai.openalice.rl.dispatcher;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;

import ai.openalice.rl.dispatcher.model.RolloutState;
import ai.openalice.rl.dispatcher.repository.EvalStore;
import ai.openalice.rl.dispatcher.service.EvalReport;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/** The evaluation report from its attempts, worked by hand; and the JSON names clients read. */
class EvalReportTest {
    static final UUID RUN = UUID.fromString("00000000-0000-0000-0000-000000000001");

    static EvalStore.Attempt scored(String task, int exec, double prm) {
        return new EvalStore.Attempt(task, UUID.randomUUID(), RolloutState.SCORED, false, exec, prm, 100L);
    }

    @Test
    void scoresEachTaskAndAveragesOverTasksWithAScoredMember() throws Exception {
        var attempts = List.of(scored("a", 1, 0.2), scored("a", 0, 0.9),
                new EvalStore.Attempt("a", UUID.randomUUID(), RolloutState.SCORED, true, null, null, null), // masked: not counted
                new EvalStore.Attempt("b", UUID.randomUUID(), RolloutState.FAILED, false, null, null, null));
        var report = EvalReport.of(new EvalStore.Run(RUN, 3, 2, 0.5), attempts);

        assertEquals("done", report.state()); // scored, scored, scored (masked), failed: none live
        assertEquals(1, report.rolloutsFailed());
        var a = report.tasks().get(0);
        assertEquals(2, a.n());
        assertEquals(1, a.c());
        assertEquals(0.5, a.pass1(), 1e-12);
        assertEquals(1.0, a.passK(), 1e-12); // n=2, c=1, k=2: 1 − C(1,2)/C(2,2) = 1
        assertEquals(0.0, a.bestByPrm(), 1e-12); // the rubric prefers 0.9, which failed
        assertEquals(1.0, a.bestByExec(), 1e-12);
        assertEquals(1.0, a.bestByHybrid(), 1e-12); // 0.5·1 + 0.5·0.2 = 0.6 > 0.5·0 + 0.5·0.9 = 0.45
        var b = report.tasks().get(1);
        assertEquals(0, b.n());
        assertNull(b.pass1());
        assertEquals(1, report.overall().tasks()); // b has no scored member
        assertEquals(0.5, report.overall().pass1(), 1e-12);

        var json = new ObjectMapper().readTree(new ObjectMapper().writeValueAsString(report));
        assertEquals(0.5, json.path("overall").path("pass@1").asDouble(), 1e-12);
        assertEquals(1.0, json.path("tasks").get(0).path("bestOfK.hybrid").asDouble(), 1e-12);
        assertFalse(json.path("tasks").get(1).has("c"), "a task with nothing scored has no scores: " + json);
    }

    @Test
    void aRunWithNothingScoredYetIsRunningWithNoAverages() throws Exception {
        var report = EvalReport.of(new EvalStore.Run(RUN, 0, 4, 0.5),
                List.of(new EvalStore.Attempt("a", UUID.randomUUID(), RolloutState.REQUESTED, false, null, null, null)));
        assertEquals("running", report.state());
        assertEquals(1, report.rolloutsLive());
        var json = new ObjectMapper().readTree(new ObjectMapper().writeValueAsString(report));
        assertFalse(json.path("overall").has("pass@1"), json.toString());
        assertEquals(0, json.path("overall").path("tasks").asInt());
    }
}
