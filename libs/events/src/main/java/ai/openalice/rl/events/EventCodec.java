package ai.openalice.rl.events;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonSubTypes;
import com.fasterxml.jackson.annotation.JsonTypeInfo;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JavaType;
import com.fasterxml.jackson.databind.JsonMappingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.datatype.jsr310.JavaTimeModule;
import java.io.IOException;
import java.lang.reflect.ParameterizedType;
import java.lang.reflect.RecordComponent;
import java.lang.reflect.Type;
import java.nio.charset.StandardCharsets;
import java.util.List;

/**
 * JSON serde for {@link Envelope}s. Writing is strict (what the schemas say); reading is tolerant of
 * fields it does not know (a compatible schema change) and reports anything else as
 * {@link Decoded.Malformed} with a reason, never as an exception that takes a consumer down.
 */
public final class EventCodec {
    private static final ObjectMapper MAPPER = JsonMapper.builder()
            .addModule(new JavaTimeModule())
            .disable(SerializationFeature.WRITE_DATES_AS_TIMESTAMPS)
            .disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
            .enable(DeserializationFeature.FAIL_ON_NULL_FOR_PRIMITIVES)
            .enable(DeserializationFeature.FAIL_ON_MISSING_CREATOR_PROPERTIES)
            .serializationInclusion(JsonInclude.Include.ALWAYS)
            .build();

    private EventCodec() {}

    /** The mapper configured for events, for adapters that need one (e.g. a Kafka serde). */
    public static ObjectMapper mapper() {
        return MAPPER;
    }

    public static byte[] encode(Envelope<?> envelope) {
        try {
            return MAPPER.writeValueAsBytes(envelope);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("cannot serialise " + envelope.type() + " " + envelope.eventId(), e);
        }
    }

    public static String encodeToString(Envelope<?> envelope) {
        return new String(encode(envelope), StandardCharsets.UTF_8);
    }

    /** Decodes an event read from {@code topic}; the result says what was wrong when it cannot. */
    @SuppressWarnings("unchecked")
    public static <P extends EventPayload> Decoded<P> decode(Topic topic, byte[] bytes) {
        if (bytes == null || bytes.length == 0) {
            return new Decoded.Malformed<>("empty record value");
        }
        JsonNode tree;
        try {
            tree = MAPPER.readTree(bytes);
        } catch (JsonProcessingException e) {
            return new Decoded.Malformed<>("not JSON: " + e.getOriginalMessage());
        } catch (IOException e) {
            return new Decoded.Malformed<>("not JSON: " + e.getMessage());
        }
        if (tree == null || !tree.isObject()) {
            return new Decoded.Malformed<>("not a JSON object");
        }
        String type = tree.path("type").asText("");
        if (!topic.topicName().equals(type)) {
            return new Decoded.Malformed<>("type '" + type + "' does not belong on topic " + topic.topicName());
        }
        int version = tree.path("schemaVersion").asInt(-1);
        if (version == 1 && topic.schemaVersion() == 2 && tree.get("payload") instanceof ObjectNode old) {
            var upgraded = V1Rollouts.upgrade(topic, old);
            if (upgraded.payload().isEmpty()) {
                return new Decoded.Malformed<>(upgraded.refused());
            }
            ((ObjectNode) tree).put("schemaVersion", topic.schemaVersion());
        } else if (version != topic.schemaVersion()) {
            return new Decoded.Malformed<>("unsupported schemaVersion " + tree.path("schemaVersion") + " of " + topic.topicName()
                    + " (this reader knows " + (topic.schemaVersion() == 2 ? "1 and 2" : topic.schemaVersion()) + ")");
        }
        if (tree.get("payload") instanceof ObjectNode payload) {
            fillAdded(payload, topic.payloadType());
        }
        JavaType javaType = MAPPER.getTypeFactory().constructParametricType(Envelope.class, topic.payloadType());
        try {
            return new Decoded.Ok<>((Envelope<P>) MAPPER.treeToValue(tree, javaType));
        } catch (JsonProcessingException e) {
            return new Decoded.Malformed<>(describe(e));
        } catch (IllegalArgumentException | NullPointerException e) {
            return new Decoded.Malformed<>(e.getMessage());
        }
    }

    /**
     * Puts null for every {@link Added} component an older producer did not write, in this record and
     * everything it holds: records, lists of them, and the subtypes a {@link JsonTypeInfo} names.
     */
    private static void fillAdded(JsonNode json, Type type) {
        Class<?> raw = type instanceof ParameterizedType p ? (Class<?>) p.getRawType() : type instanceof Class<?> c ? c : Object.class;
        if (json instanceof ArrayNode array && List.class.isAssignableFrom(raw) && type instanceof ParameterizedType p) {
            array.forEach(e -> fillAdded(e, p.getActualTypeArguments()[0]));
            return;
        }
        if (!(json instanceof ObjectNode object)) {
            return;
        }
        JsonTypeInfo info = raw.getAnnotation(JsonTypeInfo.class);
        JsonSubTypes subtypes = raw.getAnnotation(JsonSubTypes.class);
        if (info != null && subtypes != null) {
            String name = object.path(info.property()).asText("");
            for (JsonSubTypes.Type t : subtypes.value()) {
                if (t.name().equals(name)) {
                    fillAdded(object, t.value());
                }
            }
            return;
        }
        if (!raw.isRecord()) {
            return;
        }
        for (RecordComponent c : raw.getRecordComponents()) {
            JsonNode value = object.get(c.getName());
            if (value == null && c.isAnnotationPresent(Added.class)) {
                object.putNull(c.getName());
            } else if (value != null) {
                fillAdded(value, c.getGenericType());
            }
        }
    }

    /**
     * A value held outside an event (a trajectory in the artifact store, a request's body) read as an
     * event's would be: fields added since it was written read as null.
     */
    public static <T> T read(JsonNode tree, Class<T> type) throws JsonProcessingException {
        JsonNode copy = tree.deepCopy();
        fillAdded(copy, type);
        return MAPPER.treeToValue(copy, type);
    }

    private static String describe(JsonProcessingException e) {
        String path = e instanceof JsonMappingException m && !m.getPath().isEmpty()
                ? m.getPath().stream()
                        .map(r -> r.getFieldName() != null ? r.getFieldName() : "[" + r.getIndex() + "]")
                        .reduce((a, b) -> b.startsWith("[") ? a + b : a + "." + b).orElse("$")
                : "$";
        Throwable root = e;
        while (root.getCause() != null && root.getCause() != root) {
            root = root.getCause();
        }
        String message = root instanceof JsonProcessingException j ? j.getOriginalMessage() : root.getMessage();
        return path + ": " + message;
    }

    /** The outcome of decoding one record. */
    public sealed interface Decoded<P extends EventPayload> {
        /** A well-formed event. */
        record Ok<P extends EventPayload>(Envelope<P> envelope) implements Decoded<P> {}

        /** Bytes that are not a valid event of the topic, and why. */
        record Malformed<P extends EventPayload>(String reason) implements Decoded<P> {}
    }
}
