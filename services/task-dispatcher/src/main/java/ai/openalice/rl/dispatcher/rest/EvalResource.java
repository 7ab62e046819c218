package ai.openalice.rl.dispatcher.rest;

import ai.openalice.rl.auth.Roles;
import ai.openalice.rl.dispatcher.model.IntakeOutcome;
import ai.openalice.rl.dispatcher.repository.TaskStore;
import ai.openalice.rl.dispatcher.service.EvalService;
import ai.openalice.rl.dispatcher.service.IntakeService;
import ai.openalice.rl.servicekit.rest.Problems;
import com.fasterxml.jackson.databind.JsonNode;
import io.smallrye.common.annotation.Blocking;
import jakarta.annotation.security.RolesAllowed;
import jakarta.inject.Inject;
import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import java.util.ArrayList;
import java.util.Map;
import java.util.UUID;

/**
 * {@code POST /evals} {@code {"taskIds": [...] | "tasks": [task, ...], "k": 16, "policyVersion": N, "alpha": 0.5}}:
 * 202 with the run id; tasks given inline are taken in like {@code POST /tasks} (source {@code eval}).
 * {@code GET /evals/{id}}: the report so far.
 */
@Path("/evals")
@Blocking
@Produces(MediaType.APPLICATION_JSON)
public class EvalResource {
    /** A run started: its id, its tasks, and the rollouts it will take. */
    /** Rollouts per task at most: each is a row and a request; pass@k beyond this is not what an evaluation run is for. */
    static final int MAX_K = 1024;

    public record Started(String evalRunId, int tasks, int rollouts) {}

    @Inject
    EvalService evals;

    @Inject
    IntakeService intake;

    @Inject
    TaskStore tasks;

    @POST
    @RolesAllowed(Roles.OPERATOR)
    @Consumes(MediaType.APPLICATION_JSON)
    public Response start(JsonNode body) {
        if (body == null || !body.isObject()) {
            return Problems.of(400, "Invalid evaluation", "the body must be a JSON object");
        }
        if (!body.path("k").canConvertToInt() || body.get("k").asInt() < 1 || body.get("k").asInt() > MAX_K) {
            return Problems.of(400, "Invalid evaluation", "k: required, an integer from 1 to " + MAX_K + " (rollouts per task)");
        }
        if (!body.path("policyVersion").canConvertToLong() || body.get("policyVersion").asLong() < 0) {
            return Problems.of(400, "Invalid evaluation", "policyVersion: required, an integer >= 0 (the checkpoint to evaluate)");
        }
        double alpha = body.path("alpha").isNumber() ? body.get("alpha").asDouble() : 0.5;
        if (!(alpha >= 0 && alpha <= 1)) {
            return Problems.of(400, "Invalid evaluation", "alpha: must be in [0, 1], got " + alpha);
        }
        var ids = new ArrayList<String>();
        if (body.path("tasks").isArray()) {
            var jsonl = new StringBuilder();
            body.get("tasks").forEach(t -> jsonl.append(t.toString()).append('\n'));
            var outcomes = intake.fromRest(jsonl.toString(), "eval", null, false);
            if (outcomes.stream().anyMatch(IntakeOutcome::refused)) {
                return Problems.of(400, "Invalid evaluation", "some tasks were rejected; see tasks[].errors", Map.of("tasks", outcomes));
            }
            outcomes.forEach(o -> ids.add(o.taskId()));
        }
        body.path("taskIds").forEach(t -> ids.add(t.asText()));
        if (ids.isEmpty()) {
            return Problems.of(400, "Invalid evaluation", "name the tasks: taskIds (known ids) or tasks (task objects)");
        }
        var unknown = ids.stream().filter(id -> tasks.latestVersion(id).isEmpty()).toList();
        if (!unknown.isEmpty()) {
            return Problems.of(400, "Invalid evaluation", "unknown task(s): " + String.join(", ", unknown));
        }
        UUID run = evals.start(ids, body.get("k").asInt(), body.get("policyVersion").asLong(), alpha);
        return Response.accepted(new Started(run.toString(), ids.size(), ids.size() * body.get("k").asInt())).build();
    }

    @GET
    @RolesAllowed({Roles.READER, Roles.OPERATOR})
    @Path("{id}")
    public Response report(@PathParam("id") String id) {
        UUID run;
        try {
            run = UUID.fromString(id);
        } catch (IllegalArgumentException e) {
            return Problems.of(400, "Invalid evaluation id", "'" + id + "' is not a UUID");
        }
        return evals.report(run).map(r -> Response.ok(r).build()).orElseGet(() -> Problems.of(404, "Unknown evaluation", "no evaluation run " + id));
    }
}
