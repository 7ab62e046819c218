package ai.openalice.rl.dispatcher.service;

import ai.openalice.rl.core.eval.PassAtK;
import ai.openalice.rl.core.eval.Selection;
import ai.openalice.rl.dispatcher.model.RolloutState;
import ai.openalice.rl.dispatcher.repository.EvalStore;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Function;

/**
 * {@code GET /evals/{id}}: an evaluation run so far — pass@1 (the mean), pass@k (unbiased
 * estimator), best-of-K under the execution-free score (the rubric PRM, s_prm), under the
 * execution-based score (the hidden tests: an oracle upper bound) and under the hybrid
 * α·exec + (1−α)·s_prm; per task, and averaged over the tasks with a scored member.
 */
public record EvalReport(String evalRunId, long policyVersion, int k, double alpha, String state, int rolloutsLive, int rolloutsFailed,
        Scores overall, List<TaskScores> tasks) {

    /** Averages over {@code tasks} tasks (the scores are absent while none has a scored member). */
    @JsonInclude(JsonInclude.Include.NON_NULL)
    public record Scores(int tasks, @JsonProperty("pass@1") Double pass1, @JsonProperty("pass@k") Double passK,
            @JsonProperty("bestOfK.prm") Double bestByPrm, @JsonProperty("bestOfK.exec") Double bestByExec,
            @JsonProperty("bestOfK.hybrid") Double bestByHybrid) {}

    /** One task: {@code n} scored members, {@code c} of them solved (the scores are absent while n is 0). */
    @JsonInclude(JsonInclude.Include.NON_NULL)
    public record TaskScores(String taskId, int n, Integer c, @JsonProperty("pass@1") Double pass1, @JsonProperty("pass@k") Double passK,
            @JsonProperty("bestOfK.prm") Double bestByPrm, @JsonProperty("bestOfK.exec") Double bestByExec,
            @JsonProperty("bestOfK.hybrid") Double bestByHybrid) {}

    /** The report of {@code run} from its attempts. */
    public static EvalReport of(EvalStore.Run run, List<EvalStore.Attempt> attempts) {
        var byTask = new TreeMap<String, List<EvalStore.Attempt>>();
        int live = 0;
        int failed = 0;
        for (var a : attempts) {
            byTask.computeIfAbsent(a.taskId(), x -> new ArrayList<>()).add(a);
            live += a.state() == RolloutState.SCORED || a.state() == RolloutState.FAILED || a.state() == RolloutState.DROPPED ? 0 : 1;
            failed += a.state() == RolloutState.FAILED ? 1 : 0;
        }
        var perTask = new ArrayList<TaskScores>();
        for (Map.Entry<String, List<EvalStore.Attempt>> e : byTask.entrySet()) {
            perTask.add(task(e.getKey(), e.getValue(), run.k(), run.alpha()));
        }
        var scored = perTask.stream().filter(t -> t.n() > 0).toList();
        Scores overall = scored.isEmpty() ? new Scores(0, null, null, null, null, null)
                : new Scores(scored.size(), mean(scored, TaskScores::pass1), mean(scored, TaskScores::passK), mean(scored, TaskScores::bestByPrm),
                        mean(scored, TaskScores::bestByExec), mean(scored, TaskScores::bestByHybrid));
        return new EvalReport(run.evalRunId().toString(), run.policyVersion(), run.k(), run.alpha(), live == 0 ? "done" : "running", live, failed,
                overall, perTask);
    }

    private static TaskScores task(String taskId, List<EvalStore.Attempt> attempts, int k, double alpha) {
        var scored = attempts.stream().filter(a -> a.state() == RolloutState.SCORED && !a.masked()).toList();
        if (scored.isEmpty()) {
            return new TaskScores(taskId, 0, null, null, null, null, null, null);
        }
        int c = (int) scored.stream().filter(a -> a.rExec() != null && a.rExec() == 1).count();
        var candidates = scored.stream().map(a -> new Selection.Candidate(a.rolloutId().toString(), a.rExec() == null ? 0 : a.rExec(),
                a.sPrm() == null ? 0 : a.sPrm(), a.tokens() == null ? 0 : a.tokens())).toList();
        return new TaskScores(taskId, scored.size(), c, (double) c / scored.size(), PassAtK.estimate(scored.size(), c, Math.min(k, scored.size())),
                Selection.bestByExecutionFree(candidates).executionScore(), Selection.bestByExecution(candidates).executionScore(),
                Selection.bestHybrid(candidates, alpha).executionScore());
    }

    private static double mean(List<TaskScores> tasks, Function<TaskScores, Double> score) {
        return tasks.stream().mapToDouble(score::apply).sum() / tasks.size();
    }
}
