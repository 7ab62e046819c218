package ai.openalice.rl.prm;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.regex.Pattern;
import java.util.regex.PatternSyntaxException;

/**
 * Reads a publisher's rubric (the task's {@code rubric} field) in the check language:
 * <pre>
 * {"criteria": [
 *   {"id": "ran_tests", "description": "ran pytest", "weight": 0.5, "check": {"type": "ran_command", "pattern": "pytest"}},
 *   {"id": "found_it", "weight": 0.5, "check": {"type": "edited", "path": "calc/ops.py"}}]}
 * </pre>
 * Check types: localisation, edit_constraints, trajectory_discipline, budget (the built-ins),
 * ran_command (pattern), viewed / edited (path), patch_excludes (pattern), max_turns (n).
 * Errors name the criterion and the field.
 */
public final class RubricParser {
    private RubricParser() {}

    public static Rubric parse(JsonNode node, int version) {
        if (node == null || !node.path("criteria").isArray() || node.get("criteria").isEmpty()) {
            throw new IllegalArgumentException("rubric.criteria must be a non-empty array");
        }
        var criteria = new ArrayList<Rubric.Criterion>();
        int i = 0;
        for (JsonNode c : node.get("criteria")) {
            String where = "rubric.criteria[" + i++ + "]";
            String id = text(c, "id", where);
            if (!c.path("weight").isNumber()) {
                throw new IllegalArgumentException(where + ".weight must be a number");
            }
            criteria.add(new Rubric.Criterion(id, c.path("description").asText(id), check(c.path("check"), where + ".check"), c.get("weight").asDouble()));
        }
        return new Rubric(version, criteria);
    }

    private static Check check(JsonNode c, String where) {
        String type = text(c, "type", where);
        return switch (type) {
            case "localisation" -> new Check.Localisation();
            case "edit_constraints" -> new Check.EditConstraints();
            case "trajectory_discipline" -> new Check.TrajectoryDiscipline();
            case "budget" -> new Check.Budget();
            case "ran_command" -> new Check.RanCommand(regex(c, where));
            case "viewed" -> new Check.Touched(text(c, "path", where), false);
            case "edited" -> new Check.Touched(text(c, "path", where), true);
            case "patch_excludes" -> new Check.PatchExcludes(regex(c, where));
            case "max_turns" -> {
                if (!c.path("n").canConvertToInt() || c.get("n").asInt() < 1) {
                    throw new IllegalArgumentException(where + ".n must be a positive integer");
                }
                yield new Check.MaxTurns(c.get("n").asInt());
            }
            default -> throw new IllegalArgumentException(where + ".type '" + type + "' is not one of localisation, edit_constraints,"
                    + " trajectory_discipline, budget, ran_command, viewed, edited, patch_excludes, max_turns");
        };
    }

    private static String text(JsonNode c, String field, String where) {
        if (!c.path(field).isTextual() || c.get(field).asText().isBlank()) {
            throw new IllegalArgumentException(where + "." + field + " is required");
        }
        return c.get(field).asText();
    }

    private static Pattern regex(JsonNode c, String where) {
        String p = text(c, "pattern", where);
        try {
            return Pattern.compile(p);
        } catch (PatternSyntaxException e) {
            throw new IllegalArgumentException(where + ".pattern is not a regular expression: " + e.getDescription());
        }
    }
}
