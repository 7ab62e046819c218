package ai.openalice.rl.agent.tools;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

/** Reads tool arguments, with errors phrased for the model. */
final class Args {
    private Args() {}

    /** A bad argument; its message is the observation. */
    static final class Bad extends RuntimeException {
        Bad(String message) {
            super(message, null, false, false);
        }
    }

    static String required(ObjectNode args, String tool, String name) {
        JsonNode v = args.get(name);
        if (v == null || v.isNull()) {
            throw new Bad(tool + ": missing argument '" + name + "'");
        }
        if (!v.isTextual()) {
            throw new Bad(tool + ": argument '" + name + "' must be a string");
        }
        return v.asText();
    }

    static String optional(ObjectNode args, String name, String dflt) {
        JsonNode v = args.get(name);
        return v == null || v.isNull() ? dflt : v.asText();
    }

    static Integer optionalInt(ObjectNode args, String tool, String name) {
        JsonNode v = args.get(name);
        if (v == null || v.isNull()) {
            return null;
        }
        if (v.isIntegralNumber()) {
            return v.asInt();
        }
        if (v.isTextual()) {
            try {
                return Integer.parseInt(v.asText().strip());
            } catch (NumberFormatException e) {
                // fall through
            }
        }
        throw new Bad(tool + ": argument '" + name + "' must be an integer, got " + v);
    }
}
