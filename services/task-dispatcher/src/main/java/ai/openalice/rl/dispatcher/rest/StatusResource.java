package ai.openalice.rl.dispatcher.rest;

import ai.openalice.rl.dispatcher.config.DispatcherConfig;
import ai.openalice.rl.dispatcher.service.Scheduler;
import ai.openalice.rl.servicekit.rest.Problems;
import io.smallrye.common.annotation.Blocking;
import io.vertx.mutiny.sqlclient.Pool;
import io.vertx.mutiny.sqlclient.Row;
import io.vertx.mutiny.sqlclient.RowSet;
import io.vertx.mutiny.sqlclient.Tuple;
import jakarta.inject.Inject;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.TreeMap;
import java.util.UUID;

/** {@code GET /groups/{id}} (every attempt of every member) and {@code GET /stats} (queues, in flight, solve rates, staleness, sources). */
@Path("/")
@Blocking
@Produces(MediaType.APPLICATION_JSON)
public class StatusResource {
    static final Duration DB = Duration.ofSeconds(30);

    @Inject
    Pool pool;

    @Inject
    DispatcherConfig config;

    @Inject
    ai.openalice.rl.dispatcher.service.TrainerTerms terms;

    private RowSet<Row> q(String sql, Object... args) {
        return pool.preparedQuery(sql).execute(Tuple.from(args)).await().atMost(DB);
    }

    @GET
    @Path("groups/{id}")
    public Response group(@PathParam("id") String id) {
        UUID gid;
        try {
            gid = UUID.fromString(id);
        } catch (IllegalArgumentException e) {
            return Problems.of(400, "Invalid group id", "'" + id + "' is not a UUID");
        }
        var rows = q("SELECT * FROM dispatcher.groups WHERE group_id = $1", gid);
        if (!rows.iterator().hasNext()) {
            return Problems.of(404, "Unknown group", "no group " + id);
        }
        Row g = rows.iterator().next();
        var out = new LinkedHashMap<String, Object>();
        out.put("groupId", id);
        out.put("taskId", g.getString("task_id"));
        out.put("taskVersion", g.getInteger("task_version"));
        out.put("policyVersion", g.getLong("policy_version"));
        out.put("size", g.getInteger("size"));
        out.put("mode", g.getString("mode"));
        out.put("state", g.getString("state"));
        out.put("reason", g.getString("reason"));
        var members = new ArrayList<Map<String, Object>>();
        for (Row r : q("SELECT * FROM dispatcher.rollouts WHERE group_id = $1 ORDER BY member_index, attempt", gid)) {
            var m = new LinkedHashMap<String, Object>();
            m.put("rolloutId", r.getUUID("rollout_id").toString());
            m.put("member", r.getInteger("member_index"));
            m.put("attempt", r.getInteger("attempt"));
            m.put("state", r.getString("state"));
            m.put("reason", r.getString("reason"));
            m.put("masked", r.getBoolean("masked"));
            m.put("rExec", r.getInteger("r_exec"));
            m.put("reward", r.getDouble("reward"));
            m.put("sPrm", r.getDouble("s_prm"));
            members.add(m);
        }
        out.put("rollouts", members);
        return Response.ok(out).build();
    }

    @GET
    @Path("stats")
    public Map<String, Object> stats() {
        var out = new LinkedHashMap<String, Object>();
        Row s = q("SELECT * FROM dispatcher.scheduler WHERE id = 1").iterator().next();
        out.put("policyVersion", s.getLong("policy_version"));
        out.put("round", s.getLong("round"));
        var rollouts = new TreeMap<String, Long>();
        q("SELECT state, count(*) AS n FROM dispatcher.rollouts GROUP BY state").forEach(r -> rollouts.put(r.getString("state"), r.getLong("n")));
        var groups = new TreeMap<String, Long>();
        q("SELECT mode || '.' || state AS k, count(*) AS n FROM dispatcher.groups GROUP BY 1").forEach(r -> groups.put(r.getString("k"), r.getLong("n")));
        long inFlight = rollouts.getOrDefault("requested", 0L) + rollouts.getOrDefault("completed", 0L) + rollouts.getOrDefault("verified", 0L);
        out.put("inFlight", inFlight);
        out.put("maxInFlight", config.maxInFlight());
        out.put("terms", terms.current());
        out.put("rollouts", rollouts);
        out.put("groups", groups);
        Row t = q("""
                SELECT count(*) AS tasks, count(*) FILTER (WHERE s.split = 'train') AS train,
                       avg(s.last_solve_rate) FILTER (WHERE s.split = 'train') AS mean_rate,
                       count(*) FILTER (WHERE s.split = 'train' AND %s) AS benched
                  FROM %s""".formatted(Scheduler.BENCHED, Scheduler.TASKS_WITH_COHORTS), s.getLong("round")).iterator().next();
        out.put("tasks", Map.of("total", t.getLong("tasks"), "train", t.getLong("train"), "benchedByCurriculum", t.getLong("benched")));
        var solve = new LinkedHashMap<String, Object>();
        solve.put("meanLastSolveRate", t.getDouble("mean_rate"));
        var hist = new TreeMap<String, Long>();
        q("""
                SELECT width_bucket(last_solve_rate, 0, 1.0000001, 4) AS b, count(*) AS n FROM dispatcher.task_state
                 WHERE split = 'train' AND last_solve_rate IS NOT NULL GROUP BY 1""")
                .forEach(r -> hist.put(switch (r.getInteger("b")) {
                    case 1 -> "[0,0.25)";
                    case 2 -> "[0.25,0.5)";
                    case 3 -> "[0.5,0.75)";
                    default -> "[0.75,1]";
                }, r.getLong("n")));
        solve.put("tasksByLastSolveRate", hist);
        out.put("solveRates", solve);
        var staleness = new TreeMap<Long, Map<String, Long>>();
        q("SELECT * FROM dispatcher.staleness").forEach(r -> staleness.put(r.getLong("lag"), Map.of("used", r.getLong("used"), "dropped", r.getLong("dropped"))));
        out.put("staleness", staleness);
        var sources = new TreeMap<String, Long>();
        q("SELECT source, groups FROM dispatcher.sources").forEach(r -> sources.put(r.getString("source"), r.getLong("groups")));
        out.put("groupsBySource", sources);
        out.put("outboxWaiting", q("SELECT count(*) AS n FROM dispatcher.outbox WHERE sent_at IS NULL").iterator().next().getLong("n"));
        return out;
    }
}
