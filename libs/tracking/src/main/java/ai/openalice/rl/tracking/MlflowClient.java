package ai.openalice.rl.tracking;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * MLflow's tracking server over its REST API (the {@code /api/2.0/mlflow} endpoints every MLflow
 * server serves, and the artifact proxy of a server run with {@code --serve-artifacts}, MLflow's
 * default). Written here on the JDK's HttpClient because MLflow's Java client on Maven Central stops
 * at 2.17 and pulls in its own HTTP stack; the endpoints used are few and stable since MLflow 2.
 *
 * <p>Credentials as MLflow's own clients read them: {@code MLFLOW_TRACKING_TOKEN} (a bearer token) or
 * {@code MLFLOW_TRACKING_USERNAME}/{@code MLFLOW_TRACKING_PASSWORD} (basic auth).
 *
 * <p>A refusal (4xx) is an {@link MlflowException} naming the endpoint and MLflow's message; a server
 * away or failing (an I/O error, 5xx, 429) is an {@link MlflowUnavailableException}, to be waited out.
 */
public final class MlflowClient {
    /** MLflow's limits on one log-batch call: 1000 items in all, of which at most 100 parameters and 100 tags. */
    static final int MAX_ITEMS = 1000;
    static final int MAX_PARAMS = 100;
    static final int MAX_TAGS = 100;
    /** MLflow 3's longest parameter value; longer values are cut, saying so. */
    static final int MAX_PARAM_CHARS = 6000;

    private static final ObjectMapper JSON = new ObjectMapper();
    private final URI base;
    private final HttpClient http;
    private final String authorization;

    public MlflowClient(URI base) {
        this(base, authorizationFromEnvironment(System.getenv()));
    }

    MlflowClient(URI base, String authorization) {
        String s = base.toString();
        this.base = URI.create(s.endsWith("/") ? s.substring(0, s.length() - 1) : s);
        this.http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();
        this.authorization = authorization;
    }

    static String authorizationFromEnvironment(Map<String, String> env) {
        String token = env.get("MLFLOW_TRACKING_TOKEN");
        if (token != null && !token.isBlank()) {
            return "Bearer " + token.strip();
        }
        String user = env.get("MLFLOW_TRACKING_USERNAME");
        if (user != null && !user.isBlank()) {
            String pass = env.getOrDefault("MLFLOW_TRACKING_PASSWORD", "");
            return "Basic " + Base64.getEncoder().encodeToString((user + ":" + pass).getBytes(StandardCharsets.UTF_8));
        }
        return null;
    }

    public URI base() {
        return base;
    }

    /** A run as MLflow describes it. */
    public record Run(String runId, String experimentId, String status, String artifactUri) {}

    /** The id of the experiment named {@code name}, created when there is none. */
    public String experiment(String name) {
        var found = experimentByName(name);
        if (found.isPresent()) {
            return found.get();
        }
        try {
            return post("experiments/create", JSON.createObjectNode().put("name", name)).get("experiment_id").asText();
        } catch (MlflowException e) {
            if ("RESOURCE_ALREADY_EXISTS".equals(e.errorCode())) { // another writer made it in between
                return experimentByName(name).orElseThrow(() -> e);
            }
            throw e;
        }
    }

    private Optional<String> experimentByName(String name) {
        try {
            return Optional.of(get("experiments/get-by-name?experiment_name=" + URLEncoder.encode(name, StandardCharsets.UTF_8))
                    .at("/experiment/experiment_id").asText());
        } catch (MlflowException e) {
            if ("RESOURCE_DOES_NOT_EXIST".equals(e.errorCode())) {
                return Optional.empty();
            }
            throw e;
        }
    }

    /** A new run in the experiment, RUNNING, with the given tags. */
    public Run createRun(String experimentId, String name, long startMillis, Map<String, String> tags) {
        ObjectNode body = JSON.createObjectNode().put("experiment_id", experimentId).put("start_time", startMillis);
        if (name != null) {
            body.put("run_name", name);
        }
        ArrayNode t = body.putArray("tags");
        tags.forEach((k, v) -> t.addObject().put("key", k).put("value", v));
        return run(post("runs/create", body).get("run"));
    }

    /** The run, or empty when MLflow has none with that id (deleted, or another server). */
    public Optional<Run> getRun(String runId) {
        try {
            return Optional.of(run(get("runs/get?run_id=" + URLEncoder.encode(runId, StandardCharsets.UTF_8)).get("run")));
        } catch (MlflowException e) {
            if ("RESOURCE_DOES_NOT_EXIST".equals(e.errorCode())) {
                return Optional.empty();
            }
            throw e;
        }
    }

    private static Run run(JsonNode run) {
        JsonNode info = run.get("info");
        return new Run(info.get("run_id").asText(), info.get("experiment_id").asText(), info.path("status").asText(),
                info.path("artifact_uri").asText());
    }

    /** One value of a metric at a step. */
    public record Metric(String key, double value, long timestampMillis, long step) {}

    /**
     * Metrics, parameters and tags in as few log-batch calls as MLflow's limits allow. Non-finite
     * values are left out (MLflow stores NaN, but its charts break on it); parameter values longer than
     * MLflow takes are cut, saying so.
     */
    public void logBatch(String runId, List<Metric> metrics, Map<String, String> params, Map<String, String> tags) {
        var ms = metrics.stream().filter(m -> Double.isFinite(m.value())).toList();
        var ps = new ArrayList<>(params.entrySet());
        var ts = new ArrayList<>(tags.entrySet());
        int mi = 0, pi = 0, ti = 0;
        do {
            ObjectNode body = JSON.createObjectNode().put("run_id", runId);
            int room = MAX_ITEMS;
            ArrayNode p = body.putArray("params");
            for (int n = 0; n < MAX_PARAMS && pi < ps.size(); n++, pi++, room--) {
                p.addObject().put("key", ps.get(pi).getKey()).put("value", cut(ps.get(pi).getValue()));
            }
            ArrayNode t = body.putArray("tags");
            for (int n = 0; n < MAX_TAGS && ti < ts.size(); n++, ti++, room--) {
                t.addObject().put("key", ts.get(ti).getKey()).put("value", cut(ts.get(ti).getValue()));
            }
            ArrayNode a = body.putArray("metrics");
            for (; room > 0 && mi < ms.size(); mi++, room--) {
                var m = ms.get(mi);
                a.addObject().put("key", m.key()).put("value", m.value()).put("timestamp", m.timestampMillis()).put("step", m.step());
            }
            post("runs/log-batch", body);
        } while (mi < ms.size() || pi < ps.size() || ti < ts.size());
    }

    static String cut(String value) {
        if (value == null) {
            return "";
        }
        if (value.length() <= MAX_PARAM_CHARS) {
            return value;
        }
        int kept = MAX_PARAM_CHARS;
        String more = "";
        for (int i = 0; i < 3; i++) { // the note's length depends on the count it gives: settles in two rounds
            more = "… (" + (value.length() - kept) + " more characters)";
            kept = MAX_PARAM_CHARS - more.length();
        }
        return value.substring(0, kept) + more;
    }

    /** The run's parameters as MLflow keeps them. */
    public Map<String, String> params(String runId) {
        var out = new LinkedHashMap<String, String>();
        get("runs/get?run_id=" + URLEncoder.encode(runId, StandardCharsets.UTF_8)).at("/run/data/params")
                .forEach(p -> out.put(p.path("key").asText(), p.path("value").asText()));
        return out;
    }

    /** Sets the run's status: RUNNING, FINISHED, FAILED or KILLED (with an end time unless RUNNING). */
    public void setStatus(String runId, String status, long endMillis) {
        ObjectNode body = JSON.createObjectNode().put("run_id", runId).put("status", status);
        if (!status.equals("RUNNING")) {
            body.put("end_time", endMillis);
        }
        post("runs/update", body);
    }

    /**
     * Stores {@code bytes} as the run's artifact {@code path} through the server's artifact proxy.
     * A run whose artifacts the server does not proxy (an {@code s3://} or {@code file:} artifact
     * location) is refused, naming it: alice-rl writes artifacts only through the server.
     */
    public void upload(Run run, String path, byte[] bytes) {
        String prefix = "mlflow-artifacts:/";
        if (!run.artifactUri().startsWith(prefix)) {
            throw new MlflowException(null, "MLflow stores run " + run.runId() + "'s artifacts at " + run.artifactUri()
                    + ", which alice-rl does not write to directly: run the MLflow server with --serve-artifacts (its default)");
        }
        if (path.startsWith("/") || path.contains("..")) {
            throw new IllegalArgumentException("artifact path " + path + " must be relative, without ..");
        }
        String rest = run.artifactUri().substring(prefix.length()).replaceFirst("^/+", "");
        sendBytes(HttpRequest.newBuilder(URI.create(base + "/api/2.0/mlflow-artifacts/artifacts/" + rest + "/" + path))
                .PUT(HttpRequest.BodyPublishers.ofByteArray(bytes)), "artifact " + path);
    }

    /** The artifact {@code path} of a run, as stored. */
    public byte[] download(Run run, String path) {
        String rest = run.artifactUri().substring("mlflow-artifacts:/".length()).replaceFirst("^/+", "");
        return sendBytes(HttpRequest.newBuilder(URI.create(base + "/api/2.0/mlflow-artifacts/artifacts/" + rest + "/" + path)).GET(),
                "artifact " + path);
    }

    /** GET of an endpoint of the 2.0 API ({@code runs/get?run_id=…}). */
    public JsonNode get(String endpoint) {
        return json(sendBytes(HttpRequest.newBuilder(api(endpoint)).GET(), endpoint), endpoint);
    }

    /** GET of any path of the server ({@code /api/3.0/mlflow/traces/get?trace_id=…}). */
    public JsonNode getPath(String path) {
        return json(sendBytes(HttpRequest.newBuilder(URI.create(base + path)).GET(), path), path);
    }

    public JsonNode post(String endpoint, JsonNode body) {
        return json(sendBytes(HttpRequest.newBuilder(api(endpoint)).header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(body.toString())), endpoint), endpoint);
    }

    private URI api(String endpoint) {
        return URI.create(base + "/api/2.0/mlflow/" + endpoint);
    }

    private static JsonNode json(byte[] body, String endpoint) {
        try {
            return body.length == 0 ? JSON.createObjectNode() : JSON.readTree(body);
        } catch (IOException e) {
            throw new MlflowUnavailableException(endpoint + " answered with something other than JSON: " + e.getMessage(), e);
        }
    }

    private byte[] sendBytes(HttpRequest.Builder request, String what) {
        request.timeout(Duration.ofSeconds(60));
        if (authorization != null) {
            request.header("Authorization", authorization);
        }
        HttpResponse<byte[]> r;
        try {
            r = http.send(request.build(), HttpResponse.BodyHandlers.ofByteArray());
        } catch (IOException e) {
            throw new MlflowUnavailableException("MLflow at " + base + " did not answer " + what + ": " + e, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new MlflowUnavailableException("interrupted while sending " + what + " to MLflow", e);
        }
        int code = r.statusCode();
        if (code / 100 == 2) {
            return r.body();
        }
        String body = new String(r.body(), StandardCharsets.UTF_8);
        if (code >= 500 || code == 429 || code == 408) {
            throw new MlflowUnavailableException("MLflow at " + base + " answered " + what + " with " + code + ": " + head(body), null);
        }
        String errorCode = null;
        String message = body;
        try {
            JsonNode n = JSON.readTree(body);
            errorCode = n.path("error_code").asText(null);
            message = n.path("message").asText(body);
        } catch (IOException ignored) {
            // not MLflow's error form: the body as it came
        }
        throw new MlflowException(errorCode, "MLflow at " + base + " refused " + what + " (" + code + (errorCode == null ? "" : " " + errorCode)
                + "): " + head(message));
    }

    private static String head(String s) {
        return s.length() <= 500 ? s : s.substring(0, 500) + "…";
    }
}
