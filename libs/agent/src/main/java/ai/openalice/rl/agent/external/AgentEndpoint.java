package ai.openalice.rl.agent.external;

import ai.openalice.rl.jinja.TemplateException;
import ai.openalice.rl.model.chat.ToolCalls;
import ai.openalice.rl.policy.PolicyException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;

/**
 * The OpenAI-compatible endpoint agent programs call: {@code POST /v1/chat/completions} and
 * {@code GET /v1/models}, on loopback only. Each episode is opened with a key of its own, which the
 * program gets as {@code OPENAI_API_KEY} and sends as {@code Authorization: Bearer}; its calls go to
 * that episode's {@link RecordingChat} and nowhere else. One answer per call ({@code n} 1): text, or,
 * when the request offers {@code tools}, the calls the model wrote as {@code tool_calls};
 * {@code stream: true} is answered as one Server-Sent Event chunk holding the whole answer, then
 * {@code [DONE]}. A request that is wrong gets a 400 naming the field, in OpenAI's error shape.
 */
public final class AgentEndpoint implements AutoCloseable {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final SecureRandom RANDOM = new SecureRandom();

    /**
     * An episode's policy as its program sees it: the model name it reports, and the run's
     * sampling, which wins over the program's (the trainer learns from samples of the run's policy):
     * its temperature, top-p and seed are used whatever the request says, its most tokens per answer
     * bound the request's {@code max_tokens}; the request's {@code stop} strings are kept.
     */
    public record Episode(RecordingChat chat, String model, RecordingChat.Sampling run) {}

    private final HttpServer server;
    private final Map<String, Episode> episodes = new ConcurrentHashMap<>();

    private AgentEndpoint(HttpServer server) {
        this.server = server;
    }

    private static final String NODELAY = "sun.net.httpserver.nodelay";

    /** Starts the endpoint on a free port of 127.0.0.1. */
    public static AgentEndpoint start() throws IOException {
        // the JDK's server leaves Nagle's algorithm on unless told (read once, at its first use): an answer written as headers then
        // body then waits for the client's delayed acknowledgement
        if (System.getProperty(NODELAY) == null) {
            System.setProperty(NODELAY, "true");
        }
        var server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 64);
        var endpoint = new AgentEndpoint(server);
        server.createContext("/", endpoint::handle);
        server.setExecutor(Executors.newVirtualThreadPerTaskExecutor());
        server.start();
        return endpoint;
    }

    /** Where it listens. */
    public URI baseUri() {
        return URI.create("http://127.0.0.1:" + server.getAddress().getPort() + "/v1");
    }

    public int port() {
        return server.getAddress().getPort();
    }

    /** Opens an episode; the key returned is the program's {@code OPENAI_API_KEY}. */
    public String open(Episode episode) {
        byte[] secret = new byte[24];
        RANDOM.nextBytes(secret);
        String key = "alice-" + HexFormat.of().formatHex(secret);
        episodes.put(key, episode);
        return key;
    }

    /** Closes an episode: its key is refused from now on. */
    public void close(String key) {
        episodes.remove(key);
    }

    @Override
    public void close() {
        server.stop(0);
    }

    private void handle(HttpExchange x) throws IOException {
        try (x) {
            String path = x.getRequestURI().getPath();
            Episode episode = episodes.get(bearer(x));
            if (episode == null) {
                send(x, 401, error("the API key is not an open episode's", "invalid_api_key", null));
                return;
            }
            switch (path) {
                case "/v1/models" -> {
                    ObjectNode out = JSON.createObjectNode().put("object", "list");
                    out.putArray("data").addObject().put("id", episode.model()).put("object", "model").put("owned_by", "alice-rl");
                    send(x, 200, out);
                }
                case "/v1/chat/completions" -> {
                    if (!"POST".equals(x.getRequestMethod())) {
                        send(x, 405, error(x.getRequestMethod() + " " + path + ": only POST", "method_not_allowed", null));
                        return;
                    }
                    chat(x, episode);
                }
                default -> send(x, 404, error("no such endpoint: " + path + " (this one serves /v1/chat/completions and /v1/models)",
                        "not_found", null));
            }
        } catch (RuntimeException e) {
            send(x, 500, error("the endpoint failed: " + e, "server_error", null));
        }
    }

    private void chat(HttpExchange x, Episode episode) throws IOException {
        JsonNode body;
        try {
            body = JSON.readTree(x.getRequestBody());
        } catch (IOException e) {
            send(x, 400, error("the body is not JSON: " + e.getMessage(), "invalid_request_error", null));
            return;
        }
        Request r;
        try {
            r = Request.of(body, episode.run());
        } catch (BadField e) {
            send(x, 400, error(e.getMessage(), "invalid_request_error", e.field));
            return;
        }
        RecordingChat.Answer a;
        try {
            a = episode.chat().complete(r.messages(), r.tools(), r.sampling());
        } catch (RecordingChat.BudgetSpent e) {
            boolean context = episode.chat().spent().orElse(null) == RecordingChat.Spent.CONTEXT;
            ObjectNode err = error(e.getMessage(), "invalid_request_error", context ? "messages" : null);
            ((ObjectNode) err.get("error")).put("code", context ? "context_length_exceeded" : "episode_budget_spent");
            send(x, 400, err);
            return;
        } catch (TemplateException e) {
            send(x, 400, error("messages: the model's chat template cannot render them: " + e.getMessage(), "invalid_request_error", "messages"));
            return;
        } catch (PolicyException | IllegalArgumentException e) {
            send(x, 502, error("the policy could not answer: " + e.getMessage(), "server_error", null));
            return;
        }
        String id = "chatcmpl-" + UUID.randomUUID();
        long created = System.currentTimeMillis() / 1000;
        ObjectNode message = message(a.text(), r.tools() != null);
        episode.chat().answered(message);
        String finish = message.has("tool_calls") ? "tool_calls" : switch (a.finish()) {
            case STOP -> "stop";
            case LENGTH, CONTEXT -> "length";
        };
        if (r.stream()) {
            ObjectNode chunk = JSON.createObjectNode().put("id", id).put("object", "chat.completion.chunk").put("created", created)
                    .put("model", episode.model());
            ObjectNode choice = chunk.putArray("choices").addObject().put("index", 0);
            ObjectNode delta = message.deepCopy();
            if (delta.get("tool_calls") instanceof ArrayNode calls) {
                for (int i = 0; i < calls.size(); i++) {
                    ((ObjectNode) calls.get(i)).put("index", i);
                }
            }
            choice.set("delta", delta);
            choice.put("finish_reason", finish);
            usage(chunk, a);
            x.getResponseHeaders().set("Content-Type", "text/event-stream");
            byte[] out = ("data: " + JSON.writeValueAsString(chunk) + "\n\ndata: [DONE]\n\n").getBytes(StandardCharsets.UTF_8);
            x.sendResponseHeaders(200, out.length);
            x.getResponseBody().write(out);
            return;
        }
        ObjectNode out = JSON.createObjectNode().put("id", id).put("object", "chat.completion").put("created", created).put("model", episode.model());
        ObjectNode choice = out.putArray("choices").addObject().put("index", 0);
        choice.set("message", message);
        choice.put("finish_reason", finish);
        usage(out, a);
        out.put("policy_version", a.policyVersion());
        send(x, 200, out);
    }

    /**
     * The assistant message of an answer: its text; or, when the request offered tools and the text
     * holds calls that parse (Hermes {@code <tool_call>} or Llama 3.1 JSON, as the inference service
     * reads them), the text before the first call (null when none) and the calls in OpenAI's shape.
     */
    static ObjectNode message(String text, boolean toolsOffered) {
        ObjectNode m = JSON.createObjectNode().put("role", "assistant");
        List<ToolCalls.Call> calls;
        try {
            calls = toolsOffered ? ToolCalls.parse(text) : List.of();
        } catch (ToolCalls.Malformed e) {
            calls = List.of();
        }
        if (calls.isEmpty()) {
            return m.put("content", text);
        }
        String before = text.substring(0, calls.getFirst().start()).replace("<tool_call>", "").strip();
        if (before.isEmpty()) {
            m.putNull("content");
        } else {
            m.put("content", before);
        }
        ArrayNode out = m.putArray("tool_calls");
        for (var c : calls) {
            ObjectNode call = out.addObject().put("id", "call_" + UUID.randomUUID().toString().replace("-", "").substring(0, 24)).put("type", "function");
            call.putObject("function").put("name", c.name()).put("arguments", c.arguments().toString());
        }
        return m;
    }

    private static void usage(ObjectNode out, RecordingChat.Answer a) {
        out.putObject("usage").put("prompt_tokens", a.promptTokens()).put("completion_tokens", a.completionTokens())
                .put("total_tokens", a.promptTokens() + a.completionTokens());
    }

    /** A chat request's fields, checked. */
    record Request(ArrayNode messages, JsonNode tools, RecordingChat.Sampling sampling, boolean stream) {
        static Request of(JsonNode body, RecordingChat.Sampling run) throws BadField {
            if (!body.isObject()) {
                throw new BadField("body", "the body must be a JSON object");
            }
            JsonNode messages = body.path("messages");
            if (!messages.isArray() || messages.isEmpty()) {
                throw new BadField("messages", "messages is required: a non-empty array of {role, content}");
            }
            for (int i = 0; i < messages.size(); i++) {
                JsonNode m = messages.get(i);
                if (!m.path("role").isTextual()) {
                    throw new BadField("messages", "messages[" + i + "].role is required");
                }
                JsonNode c = m.path("content");
                if (c.isArray()) {
                    var text = new StringBuilder();
                    for (JsonNode part : c) {
                        if (!"text".equals(part.path("type").asText())) {
                            throw new BadField("messages", "messages[" + i + "].content: only text parts are supported, got '" + part.path("type").asText()
                                    + "'");
                        }
                        text.append(part.path("text").asText());
                    }
                    ((ObjectNode) m).put("content", text.toString());
                } else if (!c.isTextual() && !c.isNull() && !c.isMissingNode()) {
                    throw new BadField("messages", "messages[" + i + "].content must be a string or an array of text parts");
                }
            }
            JsonNode tools = body.path("tools");
            if (!tools.isMissingNode() && !tools.isNull() && !tools.isArray()) {
                throw new BadField("tools", "tools must be an array of tool definitions");
            }
            if (body.path("n").asInt(1) != 1) {
                throw new BadField("n", "n must be 1: every answer is a recorded sample of the episode");
            }
            int max = run.maxTokens();
            for (String f : List.of("max_completion_tokens", "max_tokens")) {
                if (body.hasNonNull(f)) {
                    if (!body.get(f).canConvertToInt() || body.get(f).asInt() < 1) {
                        throw new BadField(f, f + " must be a positive integer");
                    }
                    max = Math.min(max, body.get(f).asInt());
                    break;
                }
            }
            number(body, "temperature", 0, 2);
            number(body, "top_p", Double.MIN_VALUE, 1);
            var stop = new ArrayList<String>();
            JsonNode s = body.path("stop");
            if (s.isTextual()) {
                stop.add(s.asText());
            } else if (s.isArray()) {
                s.forEach(v -> stop.add(v.asText()));
            } else if (!s.isMissingNode() && !s.isNull()) {
                throw new BadField("stop", "stop must be a string or an array of strings");
            }
            return new Request((ArrayNode) messages, tools.isArray() && !tools.isEmpty() ? tools : null,
                    new RecordingChat.Sampling(max, run.temperature(), run.topP(), stop, run.seed()), body.path("stream").asBoolean(false));
        }

        /** A field the run's sampling replaces is still checked: a wrong one is the program's mistake to hear of. */
        private static void number(JsonNode body, String field, double min, double max) throws BadField {
            if (body.hasNonNull(field) && (!body.get(field).isNumber() || body.get(field).asDouble() < min || body.get(field).asDouble() > max)) {
                throw new BadField(field, field + " must be a number in [" + (min == Double.MIN_VALUE ? 0 : min) + ", " + max + "], got "
                        + body.get(field));
            }
        }
    }

    static final class BadField extends Exception {
        final String field;

        BadField(String field, String message) {
            super(message);
            this.field = field;
        }
    }

    private static String bearer(HttpExchange x) {
        String h = x.getRequestHeaders().getFirst("Authorization");
        return h != null && h.regionMatches(true, 0, "Bearer ", 0, 7) ? h.substring(7).strip() : "";
    }

    private static ObjectNode error(String message, String type, String param) {
        ObjectNode out = JSON.createObjectNode();
        out.putObject("error").put("message", message).put("type", type).put("param", param).putNull("code");
        return out;
    }

    private static void send(HttpExchange x, int status, JsonNode body) throws IOException {
        byte[] out = JSON.writeValueAsBytes(body);
        x.getResponseHeaders().set("Content-Type", "application/json");
        x.sendResponseHeaders(status, out.length);
        x.getResponseBody().write(out);
    }
}
