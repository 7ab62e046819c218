package ai.openalice.rl.testkit;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;

/**
 * Generated bad input for the doors' fuzz tests, reproducible from a seed: variants of a valid JSON
 * document with one or more mutations — a field (at any depth) removed, a value replaced by one of
 * another type (string, number, boolean, null, array, object, a 100,000-character string, a huge or
 * negative number), an unknown field added, an array emptied — and raw text damage: truncated,
 * one character replaced, random bytes. Each case says what was done, for a failure's message.
 */
public final class Mutations {
    private static final JsonNodeFactory F = JsonNodeFactory.instance;
    private static final ObjectMapper JSON = new ObjectMapper();
    private final Random random;

    public Mutations(long seed) {
        this.random = new Random(seed);
    }

    /** One generated input: its bytes, and how it was made. */
    public record Case(byte[] bytes, String how) {
        public String text() {
            return new String(bytes, StandardCharsets.UTF_8);
        }
    }

    /** {@code n} variants of {@code valid}: about four in five structural, the rest damaged text. */
    public List<Case> of(JsonNode valid, int n) {
        var out = new ArrayList<Case>(n);
        for (int i = 0; i < n; i++) {
            out.add(random.nextInt(5) < 4 ? structural(valid) : damaged(valid));
        }
        return out;
    }

    Case structural(JsonNode valid) {
        JsonNode copy = valid.deepCopy();
        var how = new StringBuilder();
        int mutations = 1 + random.nextInt(3);
        for (int m = 0; m < mutations; m++) {
            var containers = new ArrayList<JsonNode>();
            var paths = new ArrayList<String>();
            collect(copy, "$", containers, paths);
            int pick = random.nextInt(containers.size());
            JsonNode target = containers.get(pick);
            String path = paths.get(pick);
            if (target instanceof ObjectNode o && o.size() > 0) {
                var names = new ArrayList<String>();
                o.fieldNames().forEachRemaining(names::add);
                String field = names.get(random.nextInt(names.size()));
                switch (random.nextInt(3)) {
                    case 0 -> {
                        o.remove(field);
                        how.append("removed ").append(path).append('.').append(field).append("; ");
                    }
                    case 1 -> {
                        JsonNode v = otherValue();
                        o.set(field, v);
                        how.append("set ").append(path).append('.').append(field).append(" to ").append(abbreviate(v)).append("; ");
                    }
                    default -> {
                        o.set("unknown_" + random.nextInt(1000), otherValue());
                        how.append("added an unknown field to ").append(path).append("; ");
                    }
                }
            } else if (target instanceof ArrayNode a && a.size() > 0) {
                if (random.nextBoolean()) {
                    a.removeAll();
                    how.append("emptied ").append(path).append("; ");
                } else {
                    int i = random.nextInt(a.size());
                    JsonNode v = otherValue();
                    a.set(i, v);
                    how.append("set ").append(path).append('[').append(i).append("] to ").append(abbreviate(v)).append("; ");
                }
            } else {
                how.append("left ").append(path).append(" (empty); ");
            }
        }
        return new Case(copy.toString().getBytes(StandardCharsets.UTF_8), how.toString().strip());
    }

    Case damaged(JsonNode valid) {
        byte[] bytes = valid.toString().getBytes(StandardCharsets.UTF_8);
        switch (random.nextInt(3)) {
            case 0 -> {
                int at = random.nextInt(bytes.length);
                return new Case(Arrays.copyOf(bytes, at), "truncated at byte " + at);
            }
            case 1 -> {
                int at = random.nextInt(bytes.length);
                byte[] damage = "{}[]\",:x0\\\u0000".getBytes(StandardCharsets.UTF_8);
                bytes[at] = damage[random.nextInt(damage.length)];
                return new Case(bytes, "byte " + at + " replaced");
            }
            default -> {
                byte[] noise = new byte[random.nextInt(64)];
                random.nextBytes(noise);
                return new Case(noise, noise.length + " random bytes");
            }
        }
    }

    private JsonNode otherValue() {
        return switch (random.nextInt(10)) {
            case 0 -> F.textNode("x");
            case 1 -> F.numberNode(random.nextInt(2000) - 1000);
            case 2 -> F.booleanNode(random.nextBoolean());
            case 3 -> F.nullNode();
            case 4 -> F.arrayNode().add(1).add("two");
            case 5 -> F.objectNode().put("a", 1);
            case 6 -> F.textNode("y".repeat(100_000));
            case 7 -> F.numberNode(new BigInteger("9".repeat(40)));
            case 8 -> F.numberNode(-1.5e308);
            default -> F.textNode("");
        };
    }

    private static void collect(JsonNode node, String path, List<JsonNode> containers, List<String> paths) {
        if (node.isContainerNode()) {
            containers.add(node);
            paths.add(path);
            if (node instanceof ObjectNode o) {
                o.properties().forEach(e -> collect(e.getValue(), path + "." + e.getKey(), containers, paths));
            } else {
                for (int i = 0; i < node.size(); i++) {
                    collect(node.get(i), path + "[" + i + "]", containers, paths);
                }
            }
        }
    }

    private static String abbreviate(JsonNode v) {
        String s = v.toString();
        return s.length() > 40 ? s.substring(0, 40) + "…(" + s.length() + " chars)" : s;
    }

    /** Parses a document for use as a template. */
    public static JsonNode parse(String json) {
        try {
            return JSON.readTree(json);
        } catch (IOException e) {
            throw new IllegalArgumentException(e);
        }
    }
}
