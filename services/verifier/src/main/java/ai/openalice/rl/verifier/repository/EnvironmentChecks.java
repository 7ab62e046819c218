package ai.openalice.rl.verifier.repository;

import io.vertx.mutiny.sqlclient.Pool;
import io.vertx.mutiny.sqlclient.Tuple;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.util.Optional;

/** Per task version (and content): does the gold patch run its tests in this environment? Checked once, kept. */
@ApplicationScoped
public class EnvironmentChecks {
    /** The outcome of a check: the gold patch resolved or at least reported tests ({@code goldOk}), else why not. */
    public record Check(boolean goldOk, String reason) {}

    @Inject
    Pool pool;

    public Optional<Check> find(String taskId, int version, String contentHash) {
        var rows = pool.preparedQuery("SELECT gold_ok, reason FROM verifier.environment_checks WHERE task_id = $1 AND version = $2 AND content_hash = $3")
                .execute(Tuple.of(taskId, version, contentHash)).await().atMost(VerificationRepository.DB);
        return rows.iterator().hasNext() ? Optional.of(rows.iterator().next()).map(r -> new Check(r.getBoolean("gold_ok"), r.getString("reason")))
                : Optional.empty();
    }

    /** Records a check; a concurrent verifier's record of the same version wins if it came first. */
    public void record(String taskId, int version, String contentHash, Check check) {
        pool.preparedQuery("INSERT INTO verifier.environment_checks (task_id, version, content_hash, gold_ok, reason) VALUES ($1, $2, $3, $4, $5)"
                + " ON CONFLICT DO NOTHING").execute(Tuple.of(taskId, version, contentHash, check.goldOk(), check.reason()))
                .await().atMost(VerificationRepository.DB);
    }
}
