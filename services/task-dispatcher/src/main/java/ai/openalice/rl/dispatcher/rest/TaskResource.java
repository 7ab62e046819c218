package ai.openalice.rl.dispatcher.rest;

import ai.openalice.rl.auth.Roles;
import ai.openalice.rl.dispatcher.model.IntakeOutcome;
import ai.openalice.rl.dispatcher.repository.SourceQuota;
import ai.openalice.rl.dispatcher.repository.TaskStore;
import ai.openalice.rl.dispatcher.service.IntakeService;
import ai.openalice.rl.servicekit.auth.AuthSettings;
import ai.openalice.rl.servicekit.rest.Problems;
import io.quarkus.security.identity.SecurityIdentity;
import io.smallrye.common.annotation.Blocking;
import jakarta.annotation.security.RolesAllowed;
import jakarta.inject.Inject;
import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.DefaultValue;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import java.util.List;
import java.util.Map;

/**
 * {@code POST /tasks}: one task (JSON) or many (JSONL), {@code ?source=} (see {@link #source}), {@code ?priority=},
 * {@code ?newVersion=true}. 200 when every task was added or unchanged; 400 (problem details, every
 * line's outcome) when any was invalid — the valid ones are still taken; 409 for a single task
 * that conflicts with its stored version; 429 with {@code Retry-After} past a source's quota
 * ({@link SourceQuota}), nothing taken. {@code GET /tasks/{id}}: versions, share, curriculum,
 * solve-rate history.
 */
@Path("/tasks")
@Blocking
public class TaskResource {
    /** What a submission did: tasks taken (added or unchanged), refused, and each one's outcome in order. */
    public record Submitted(long accepted, long rejected, List<IntakeOutcome> tasks) {
        /** The same, as members of a problem document. */
        Map<String, Object> asMap() {
            return Map.of("accepted", accepted, "rejected", rejected, "tasks", tasks);
        }
    }
    @Inject
    IntakeService intake;

    @Inject
    TaskStore store;

    @Inject
    AuthSettings auth;

    @Inject
    SourceQuota quota;

    @Inject
    SecurityIdentity identity;

    @POST
    @RolesAllowed({Roles.SUBMITTER, Roles.OPERATOR})
    @Consumes(MediaType.WILDCARD)
    @Produces(MediaType.APPLICATION_JSON)
    public Response submit(String body, @QueryParam("source") String sourceParam, @QueryParam("priority") Integer priority,
            @QueryParam("newVersion") @DefaultValue("false") boolean newVersion) {
        String source = source(sourceParam);
        if (source == null) {
            return Problems.of(403, "Forbidden", "a submitter's tasks carry its own name as their source ('" + identity.getPrincipal().getName()
                    + "'); ?source=" + sourceParam + " needs the operator role", Map.of("field", "source"));
        }
        if (body == null || body.isBlank()) {
            return Problems.of(400, "No task", "the body must be a task (JSON object) or tasks (JSONL)");
        }
        var refusal = quota.check(source, IntakeService.taskCount(body));
        if (refusal.isPresent()) {
            return Response.fromResponse(Problems.of(429, "Quota exceeded", refusal.get().detail(), Map.of("field", "source")))
                    .header("Retry-After", refusal.get().retryAfterSeconds()).build();
        }
        var outcomes = intake.fromRest(body, source, priority, newVersion);
        long rejected = outcomes.stream().filter(IntakeOutcome::refused).count();
        var summary = new Submitted(outcomes.size() - rejected, rejected, outcomes);
        if (rejected == 0) {
            return Response.ok(summary).build();
        }
        if (outcomes.size() == 1 && outcomes.getFirst() instanceof IntakeOutcome.Conflict) {
            return Problems.of(409, "Task version conflict", outcomes.getFirst().errors().getFirst().toString(), summary.asMap());
        }
        return Problems.of(400, "Invalid task", rejected + " of " + outcomes.size() + " task(s) rejected; see tasks[].errors", summary.asMap());
    }

    /**
     * The source a submission is recorded under, so that fair share and quotas are per caller: with
     * auth on, the token's principal; an operator may name another ({@code ?source=}), a submitter
     * only its own (null: refused). With auth off, {@code ?source=} or {@code rest}.
     */
    String source(String param) {
        if (!auth.enabled()) {
            return param == null || param.isBlank() ? "rest" : param;
        }
        String me = identity.getPrincipal().getName();
        if (param == null || param.isBlank() || param.equals(me)) {
            return me;
        }
        return identity.hasRole(Roles.OPERATOR) ? param : null;
    }

    @GET
    @RolesAllowed({Roles.READER, Roles.SUBMITTER, Roles.OPERATOR})
    @Path("{id}")
    @Produces(MediaType.APPLICATION_JSON)
    public Response get(@PathParam("id") String id) {
        return store.describe(id).map(d -> Response.ok(d).build())
                .orElseGet(() -> Problems.of(404, "Unknown task", "no task " + id));
    }
}
