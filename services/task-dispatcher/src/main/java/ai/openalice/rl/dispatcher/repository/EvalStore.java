package ai.openalice.rl.dispatcher.repository;

import ai.openalice.rl.dispatcher.model.RolloutState;
import ai.openalice.rl.servicekit.Sql;
import jakarta.enterprise.context.ApplicationScoped;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.UUID;

/** Evaluation runs ({@code dispatcher.evals}) and the attempts of their groups. */
@ApplicationScoped
public class EvalStore {
    /** A run: K rollouts of each task at one policy version; {@code alpha} weighs the hidden tests against the rubric in best-of-K. */
    public record Run(UUID evalRunId, long policyVersion, int k, double alpha) {}

    /** One attempt of a member of one of the run's groups; null scores until scored. */
    public record Attempt(String taskId, UUID rolloutId, RolloutState state, boolean masked, Integer rExec, Double sPrm, Long tokens) {}

    public void create(Sql sql, Run run) {
        sql.query("INSERT INTO dispatcher.evals (eval_run_id, policy_version, k, alpha) VALUES ($1, $2, $3, $4)", run.evalRunId(), run.policyVersion(),
                run.k(), run.alpha());
    }

    public Optional<Run> run(Sql sql, UUID id) {
        return sql.one("SELECT * FROM dispatcher.evals WHERE eval_run_id = $1", id)
                .map(r -> new Run(id, r.getLong("policy_version"), r.getInteger("k"), r.getDouble("alpha")));
    }

    /** Every attempt of the run that was not superseded by a retry. */
    public List<Attempt> attempts(Sql sql, UUID run) {
        var out = new ArrayList<Attempt>();
        sql.query("""
                SELECT g.task_id, r.* FROM dispatcher.groups g JOIN dispatcher.rollouts r ON r.group_id = g.group_id
                 WHERE g.eval_run_id = $1 AND r.state <> $2""", run, RolloutState.RETRIED.wire())
                .forEach(r -> out.add(new Attempt(r.getString("task_id"), r.getUUID("rollout_id"), RolloutState.of(r.getString("state")),
                        Boolean.TRUE.equals(r.getBoolean("masked")), r.getInteger("r_exec"), r.getDouble("s_prm"), r.getLong("tokens"))));
        return out;
    }
}
