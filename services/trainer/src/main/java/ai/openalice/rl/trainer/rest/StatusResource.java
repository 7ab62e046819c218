package ai.openalice.rl.trainer.rest;

import ai.openalice.rl.auth.Roles;
import ai.openalice.rl.trainer.config.TrainerConfig;
import ai.openalice.rl.trainer.messaging.TrainerService;
import ai.openalice.rl.trainer.repository.TrainerStore;
import io.smallrye.common.annotation.Blocking;
import jakarta.annotation.security.RolesAllowed;
import jakarta.inject.Inject;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * {@code GET /status}: step, policy version, the step the latest committed checkpoint holds and
 * every how many steps one is written, the last step's metrics, what was left out since the
 * process started ({@code dropped}, by reason), where the steps run ({@code learner}: its kind, and
 * for a Tinker engine whether it is away and waited for), what the loop waits out now
 * ({@code waiting}: PostgreSQL or the artifact store away while a batch is gathered) and the last
 * batch a failed step dropped ({@code lastDroppedBatch}), where the run is recorded ({@code tracking}:
 * MLflow's URL, experiment and run ids, what waits for it; traces exported), groups and samples by state
 * (with PostgreSQL away, {@code countsUnavailable} says why instead).
 */
@Path("/status")
@RolesAllowed({Roles.READER, Roles.OPERATOR})
@Blocking
public class StatusResource {
    @Inject
    TrainerService trainer;

    @Inject
    TrainerStore store;

    @Inject
    TrainerConfig config;

    @GET
    @Produces(MediaType.APPLICATION_JSON)
    public Map<String, Object> status() {
        var out = new LinkedHashMap<String, Object>();
        out.put("step", trainer.loop().step());
        out.put("policyVersion", trainer.loop().policyVersion());
        out.put("checkpointStep", trainer.loop().checkpointStep());
        out.put("checkpointEvery", config.checkpointEvery());
        out.put("last", trainer.loop().lastMetrics());
        out.put("dropped", trainer.loop().droppedSoFar());
        out.put("learner", trainer.loop().learnerStatus());
        out.putAll(trainer.loop().failureStatus());
        out.put("tracking", trainer.tracking().status());
        try {
            out.putAll(store.counts());
        } catch (RuntimeException e) { // PostgreSQL away: the rest still says where the trainer stands
            out.put("countsUnavailable", e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage());
        }
        return out;
    }
}
