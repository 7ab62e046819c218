package ai.openalice.rl.runner.service;

import ai.openalice.rl.agent.format.ToolCallFormat;
import ai.openalice.rl.agent.loop.TestTimeSelection;
import ai.openalice.rl.auth.Tokens;
import ai.openalice.rl.events.EventCodec;
import ai.openalice.rl.events.Trajectory;
import ai.openalice.rl.policy.PolicyException;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Supplier;

/** Step utilities from rubric-prm's {@code /step-utility}, for test-time selection (the task named by id and version). */
final class RubricStepScorer implements TestTimeSelection.StepScorer {
    private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    private final URI endpoint;
    private final String taskId;
    private final int taskVersion;
    private final Supplier<String> bearer;

    /** {@code bearer}: the runner's token ({@code scorer}), null from it: none sent. */
    RubricStepScorer(URI base, String taskId, int taskVersion, Supplier<String> bearer) {
        this.bearer = bearer;
        this.endpoint = base.resolve("/step-utility");
        this.taskId = taskId;
        this.taskVersion = taskVersion;
    }

    @Override
    public List<Double> utilities(Trajectory soFar, List<ToolCallFormat.Parsed> candidates) {
        ObjectNode body = EventCodec.mapper().createObjectNode();
        body.put("task_id", taskId);
        body.put("task_version", taskVersion);
        body.set("trajectory", EventCodec.mapper().valueToTree(soFar));
        var list = body.putArray("candidates");
        for (var c : candidates) {
            var node = list.addObject();
            if (c instanceof ToolCallFormat.Parsed.Call call) {
                node.put("tool", call.tool()).put("command", call.args().path("command").asText(""))
                        .put("subject", call.args().has("path") ? call.args().get("path").asText() : call.args().path("command").asText(""));
            } else {
                node.put("tool", "");
            }
        }
        try {
            var request = HttpRequest.newBuilder(endpoint).timeout(Duration.ofSeconds(30)).header("Content-Type", "application/json");
            String token = bearer.get();
            if (token != null) {
                request.header("Authorization", Tokens.authorization(token));
            }
            var resp = HTTP.send(request.POST(HttpRequest.BodyPublishers.ofString(body.toString())).build(), HttpResponse.BodyHandlers.ofString());
            if (resp.statusCode() != 200) {
                throw new PolicyException("rubric-prm /step-utility answered " + resp.statusCode() + ": " + resp.body());
            }
            var out = new ArrayList<Double>();
            EventCodec.mapper().readTree(resp.body()).path("utilities").forEach(u -> out.add(u.asDouble()));
            return out;
        } catch (IOException e) {
            throw new PolicyException("rubric-prm unreachable at " + endpoint + ": " + e.getMessage(), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new PolicyException("interrupted while asking rubric-prm", e);
        }
    }
}
