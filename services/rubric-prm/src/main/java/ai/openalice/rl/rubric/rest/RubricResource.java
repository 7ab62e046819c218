package ai.openalice.rl.rubric.rest;

import ai.openalice.rl.auth.Roles;
import ai.openalice.rl.events.EventCodec;
import ai.openalice.rl.events.Termination;
import ai.openalice.rl.events.Trajectory;
import ai.openalice.rl.events.task.Task;
import ai.openalice.rl.events.task.TaskParser;
import ai.openalice.rl.prm.EpisodeFacts;
import ai.openalice.rl.prm.Privileged;
import ai.openalice.rl.prm.Rubric;
import ai.openalice.rl.prm.RubricParser;
import ai.openalice.rl.prm.Scorer;
import ai.openalice.rl.prm.StepUtility;
import ai.openalice.rl.rubric.config.RubricConfig;
import ai.openalice.rl.rubric.repository.RubricStore;
import ai.openalice.rl.servicekit.rest.Problems;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import jakarta.annotation.security.RolesAllowed;
import jakarta.inject.Inject;
import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import java.util.ArrayList;
import java.util.Map;

/**
 * Offline scoring ({@code POST /score}: a task, a trajectory, its patch and verdict in, the
 * breakdown out) and step utilities for test-time scaling ({@code POST /step-utility}: a task, the
 * trajectory so far and M candidate actions in, u_t(a) per candidate out; the task may be named by
 * {@code task_id} and {@code task_version} instead, when the service has seen it). Bad input is a 400
 * problem naming the field.
 */
@Path("/")
@RolesAllowed(Roles.SCORER)
@Produces(MediaType.APPLICATION_JSON)
@Consumes(MediaType.APPLICATION_JSON)
public class RubricResource {
    @Inject
    RubricConfig config;

    @Inject
    RubricStore store;

    @POST
    @Path("score")
    public Response score(JsonNode body) {
        try {
            Task task = task(body);
            Trajectory t = trajectory(body);
            int maxSteps = task.limits().maxSteps();
            Termination end = body.hasNonNull("termination") ? Termination.of(body.get("termination").asText()) : Termination.SUBMITTED;
            if (!body.path("resolved").isBoolean()) {
                throw new IllegalArgumentException("resolved (true or false) is required");
            }
            double gamma = body.path("gamma").isNumber() ? body.get("gamma").asDouble() : config.gamma();
            Rubric rubric = body.hasNonNull("rubric") ? RubricParser.parse(body.get("rubric"), 1)
                    : task.raw().hasNonNull("rubric") ? RubricParser.parse(task.raw().get("rubric"), 1) : Rubric.builtIn();
            var facts = EpisodeFacts.of(t, body.path("patch").asText(""), maxSteps, end);
            var r = Scorer.score(rubric, facts, Privileged.of(task), body.get("resolved").asBoolean(), gamma, config.submitRequired());
            return Response.ok(Map.of("reward", r.reward(), "s_prm", r.sPrm(), "r_exec", r.rExec(), "gamma", r.gamma(), "criteria", r.criteria()))
                    .build();
        } catch (IllegalArgumentException e) {
            return problem(e.getMessage());
        }
    }

    @POST
    @Path("step-utility")
    public Response stepUtility(JsonNode body) {
        try {
            // A runner in test-time mode names the task (the service holds its privileged fields); offline callers send it whole.
            Task task = body != null && body.hasNonNull("task_id")
                    ? store.task(body.get("task_id").asText(), body.path("task_version").asInt(1))
                            .orElseThrow(() -> new IllegalArgumentException("task " + body.get("task_id").asText() + " v"
                                    + body.path("task_version").asInt(1) + " is unknown to rubric-prm"))
                    : task(body);
            Trajectory t = trajectory(body);
            if (!body.path("candidates").isArray() || body.get("candidates").isEmpty()) {
                throw new IllegalArgumentException("candidates must be a non-empty array of {tool, command, subject}");
            }
            var candidates = new ArrayList<StepUtility.Candidate>();
            for (JsonNode c : body.get("candidates")) {
                candidates.add(new StepUtility.Candidate(c.path("tool").asText(""), c.path("command").asText(""), c.path("subject").asText("")));
            }
            var facts = EpisodeFacts.of(t, "", task.limits().maxSteps(), Termination.SUBMITTED);
            return Response.ok(Map.of("utilities", StepUtility.utilities(facts, Privileged.of(task), candidates))).build();
        } catch (IllegalArgumentException e) {
            return problem(e.getMessage());
        }
    }

    private static Task task(JsonNode body) {
        JsonNode raw = body == null ? null : body.get("task");
        if (raw == null || !raw.isObject()) {
            throw new IllegalArgumentException("task (the task object, with its gold patch and tests) is required");
        }
        return switch (new TaskParser(java.nio.file.Path.of("/")).parse(raw)) {
            case TaskParser.Result.Valid v -> v.task();
            case TaskParser.Result.Invalid i -> throw new IllegalArgumentException("task." + i.errors().getFirst());
        };
    }

    private static Trajectory trajectory(JsonNode body) {
        JsonNode t = body.get("trajectory");
        if (t == null || !t.isObject()) {
            throw new IllegalArgumentException("trajectory ({\"turns\": [...]}) is required");
        }
        try {
            return EventCodec.read(t, Trajectory.class);
        } catch (JsonProcessingException | RuntimeException e) {
            throw new IllegalArgumentException("trajectory is not a trajectory: " + e.getMessage());
        }
    }

    private static Response problem(String detail) {
        return Problems.of(400, "Bad request", detail);
    }
}
