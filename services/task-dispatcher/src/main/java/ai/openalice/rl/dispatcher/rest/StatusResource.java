package ai.openalice.rl.dispatcher.rest;

import ai.openalice.rl.auth.Roles;
import ai.openalice.rl.dispatcher.config.DispatcherConfig;
import ai.openalice.rl.dispatcher.model.RolloutState;
import ai.openalice.rl.dispatcher.model.Terms;
import ai.openalice.rl.dispatcher.repository.GroupStore;
import ai.openalice.rl.dispatcher.repository.SchedulerStore;
import ai.openalice.rl.dispatcher.repository.StatusStore;
import ai.openalice.rl.dispatcher.service.TrainerTerms;
import ai.openalice.rl.servicekit.Sql;
import ai.openalice.rl.servicekit.rest.Problems;
import io.smallrye.common.annotation.Blocking;
import io.vertx.mutiny.sqlclient.Pool;
import jakarta.annotation.security.RolesAllowed;
import jakarta.inject.Inject;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import java.util.List;
import java.util.Map;
import java.util.UUID;

/** {@code GET /groups/{id}} (every attempt of every member) and {@code GET /stats} (queues, in flight, solve rates, staleness, sources). */
@Path("/")
@RolesAllowed({Roles.READER, Roles.OPERATOR})
@Blocking
@Produces(MediaType.APPLICATION_JSON)
public class StatusResource {
    /** A group and every attempt of its members. */
    public record GroupView(String groupId, String taskId, int taskVersion, long policyVersion, int size, String mode, String state, String reason,
            List<StatusStore.Member> rollouts) {}

    /** Training tasks: all, in the training split, and benched by the curriculum now. */
    public record TaskCounts(long total, long train, long benchedByCurriculum) {}

    /** The mean of the training tasks' last solve rates, and the tasks by that rate. */
    public record SolveRates(Double meanLastSolveRate, Map<String, Long> tasksByLastSolveRate) {}

    /** The dispatcher at a glance. */
    public record Stats(long policyVersion, long round, long inFlight, int maxInFlight, Terms terms, Map<String, Long> rollouts,
            Map<String, Long> groups, TaskCounts tasks, SolveRates solveRates, Map<Long, StatusStore.Staleness> staleness,
            Map<String, Long> groupsBySource, long outboxWaiting) {}

    @Inject
    Pool pool;

    @Inject
    DispatcherConfig config;

    @Inject
    TrainerTerms terms;

    @Inject
    GroupStore groups;

    @Inject
    SchedulerStore scheduler;

    @Inject
    StatusStore status;

    @GET
    @Path("groups/{id}")
    public Response group(@PathParam("id") String id) {
        UUID gid;
        try {
            gid = UUID.fromString(id);
        } catch (IllegalArgumentException e) {
            return Problems.of(400, "Invalid group id", "'" + id + "' is not a UUID");
        }
        return Sql.transaction(pool, sql -> groups.group(sql, gid)
                .map(g -> Response.ok(new GroupView(id, g.taskId(), g.taskVersion(), g.policyVersion(), g.size(), g.mode().wire(), g.state(),
                        g.reason(), status.members(sql, gid))).build())
                .orElseGet(() -> Problems.of(404, "Unknown group", "no group " + id)));
    }

    @GET
    @Path("stats")
    public Stats stats() {
        return Sql.transaction(pool, sql -> {
            var clock = scheduler.clock(sql, false);
            var rollouts = status.rolloutsByState(sql);
            long inFlight = RolloutState.LIVE.stream().mapToLong(s -> rollouts.getOrDefault(s.wire(), 0L)).sum();
            var t = status.tasks(sql, clock.round());
            return new Stats(clock.policyVersion(), clock.round(), inFlight, config.maxInFlight(), terms.current(), rollouts,
                    status.groupsByModeAndState(sql), new TaskCounts(t.total(), t.train(), t.benched()),
                    new SolveRates(t.meanLastSolveRate(), status.tasksByLastSolveRate(sql)), status.staleness(sql), status.groupsBySource(sql),
                    status.outboxWaiting(sql));
        });
    }
}
