package ai.openalice.rl.events.task;

import ai.openalice.rl.events.WireEnum;
import ai.openalice.rl.events.task.FieldError.Code;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

/**
 * Validates a task object and builds a {@link Task}, reporting every problem with the field that
 * has it. Accepts SWE-bench instances as they are: FAIL_TO_PASS / PASS_TO_PASS as JSON arrays or
 * as JSON-encoded strings, unknown fields kept.
 */
public final class TaskParser {
    private static final Pattern INSTANCE_ID = Pattern.compile("^[A-Za-z0-9][A-Za-z0-9._-]{0,199}$");
    private static final Pattern REPO = Pattern.compile("^[A-Za-z0-9._-]+/[A-Za-z0-9._-]+$");
    private static final Set<String> LIMIT_KEYS = Set.of("max_steps", "max_context_tokens", "episode_timeout_s", "test_timeout_s");
    private static final ObjectMapper MAPPER = new ObjectMapper();

    private final Path baseDir;

    /** @param baseDir the folder relative workspace paths resolve against (the task file's folder) */
    public TaskParser(Path baseDir) {
        this.baseDir = baseDir.toAbsolutePath().normalize();
    }

    /** The outcome of parsing one task. */
    public sealed interface Result {
        /** A valid task. */
        record Valid(Task task) implements Result {}

        /** An invalid task: every error found, and its id when it had a usable one. */
        record Invalid(String taskId, List<FieldError> errors) implements Result {
            public Invalid {
                errors = List.copyOf(errors);
            }
        }
    }

    public Result parse(JsonNode node) {
        if (node == null || !node.isObject()) {
            return new Result.Invalid(null, List.of(new FieldError("$", Code.WRONG_TYPE,
                    "a task must be a JSON object, got " + kind(node))));
        }
        var errors = new ArrayList<FieldError>();
        var obj = (ObjectNode) node;

        String id = requiredString(obj, "instance_id", errors);
        if (id != null && !INSTANCE_ID.matcher(id).matches()) {
            errors.add(new FieldError("instance_id", Code.INVALID_VALUE,
                    "must be 1-200 characters of letters, digits, '.', '_' or '-', starting with a letter or digit; got '" + id + "'"));
            id = null;
        }
        String problem = requiredString(obj, "problem_statement", errors);
        String repo = optionalString(obj, "repo", errors);
        String baseCommit = optionalString(obj, "base_commit", errors);
        String patch = optionalString(obj, "patch", errors);
        String testPatch = optionalString(obj, "test_patch", errors);
        List<String> f2p = testList(obj, "FAIL_TO_PASS", errors);
        List<String> p2p = testList(obj, "PASS_TO_PASS", errors);
        if (f2p != null && f2p.isEmpty() && !obj.has("FAIL_TO_PASS")) {
            errors.add(new FieldError("FAIL_TO_PASS", Code.MISSING, "required: the tests the fix must make pass"));
        } else if (f2p != null && f2p.isEmpty()) {
            errors.add(new FieldError("FAIL_TO_PASS", Code.INVALID_VALUE, "must list at least one test"));
        }
        String version = scalarAsString(obj, "version", errors);
        String envCommit = optionalString(obj, "environment_setup_commit", errors);
        String hints = optionalString(obj, "hints_text", errors);
        String createdAt = scalarAsString(obj, "created_at", errors);
        WorkspaceSpec workspace = workspace(obj, repo, baseCommit, errors);
        ToolchainChecks.check(obj.get("toolchain"), errors);
        String testCommand = requiredString(obj, "test_command", errors);
        TestReportSpec report = testReport(obj, errors);
        Limits limits = limits(obj, errors);
        Split split = wireValue(obj, "split", Split.class, Split.TRAIN, errors);
        wireValue(obj, "grading", Grading.class, Grading.SWE_BENCH, errors); // read by Task.grading()

        if (!errors.isEmpty()) {
            return new Result.Invalid(id, errors);
        }
        return new Result.Valid(new Task(id, repo, baseCommit, problem, patch, testPatch, f2p, p2p, version, envCommit, hints,
                createdAt, workspace, testCommand, report, limits, split, obj));
    }

    private static String requiredString(ObjectNode obj, String field, List<FieldError> errors) {
        JsonNode v = obj.get(field);
        if (v == null || v.isNull()) {
            errors.add(new FieldError(field, Code.MISSING, "required"));
            return null;
        }
        if (!v.isTextual()) {
            errors.add(new FieldError(field, Code.WRONG_TYPE, "must be a string, got " + kind(v)));
            return null;
        }
        if (v.asText().isBlank()) {
            errors.add(new FieldError(field, Code.INVALID_VALUE, "must not be empty"));
            return null;
        }
        return v.asText();
    }

    private static String optionalString(ObjectNode obj, String field, List<FieldError> errors) {
        JsonNode v = obj.get(field);
        if (v == null || v.isNull()) {
            return null;
        }
        if (!v.isTextual()) {
            errors.add(new FieldError(field, Code.WRONG_TYPE, "must be a string, got " + kind(v)));
            return null;
        }
        return v.asText();
    }

    /** SWE-bench writes {@code version} as "3.0" or 3.0; both are kept as text. */
    private static String scalarAsString(ObjectNode obj, String field, List<FieldError> errors) {
        JsonNode v = obj.get(field);
        if (v == null || v.isNull()) {
            return null;
        }
        if (!v.isTextual() && !v.isNumber()) {
            errors.add(new FieldError(field, Code.WRONG_TYPE, "must be a string or a number, got " + kind(v)));
            return null;
        }
        return v.asText();
    }

    private static List<String> testList(ObjectNode obj, String field, List<FieldError> errors) {
        JsonNode v = obj.get(field);
        if (v == null || v.isNull()) {
            return List.of();
        }
        if (v.isTextual()) {
            try {
                v = MAPPER.readTree(v.asText());
            } catch (JsonProcessingException e) {
                errors.add(new FieldError(field, Code.INVALID_VALUE,
                        "a string must hold a JSON-encoded array of test ids: " + e.getOriginalMessage()));
                return null;
            }
        }
        if (!v.isArray()) {
            errors.add(new FieldError(field, Code.WRONG_TYPE, "must be an array of test ids (or a JSON-encoded one), got " + kind(v)));
            return null;
        }
        var tests = new ArrayList<String>();
        for (int i = 0; i < v.size(); i++) {
            JsonNode t = v.get(i);
            if (!t.isTextual() || t.asText().isBlank()) {
                errors.add(new FieldError(field + "[" + i + "]", Code.WRONG_TYPE, "must be a non-empty test id string, got " + kind(t)));
                return null;
            }
            tests.add(t.asText());
        }
        return tests;
    }

    private WorkspaceSpec workspace(ObjectNode obj, String repo, String baseCommit, List<FieldError> errors) {
        JsonNode w = obj.get("workspace");
        if (w == null || w.isNull()) {
            if (repo == null || baseCommit == null || baseCommit.isBlank()) {
                errors.add(new FieldError("workspace", Code.MISSING,
                        "required unless repo and base_commit are given (resolved in the mirrors folder)"));
                return null;
            }
            if (!REPO.matcher(repo).matches()) {
                errors.add(new FieldError("repo", Code.INVALID_VALUE, "must be 'owner/name', got '" + repo + "'"));
                return null;
            }
            return new WorkspaceSpec.Mirror(repo, baseCommit);
        }
        if (!w.isObject()) {
            errors.add(new FieldError("workspace", Code.WRONG_TYPE, "must be an object, got " + kind(w)));
            return null;
        }
        var ws = (ObjectNode) w;
        JsonNode type = ws.get("type");
        if (type == null || !type.isTextual()) {
            errors.add(new FieldError("workspace.type", Code.MISSING, "required: one of git, dir, tarball, image"));
            return null;
        }
        int before = errors.size();
        WorkspaceSpec spec = switch (type.asText()) {
            case "git" -> {
                String path = path(ws, errors);
                String commit = requiredString(ws, "commit", errors);
                yield path == null || commit == null ? null : new WorkspaceSpec.Git(path, commit);
            }
            case "dir" -> {
                String path = path(ws, errors);
                yield path == null ? null : new WorkspaceSpec.Dir(path);
            }
            case "tarball" -> {
                String path = path(ws, errors);
                yield path == null ? null : new WorkspaceSpec.Tarball(path);
            }
            case "image" -> {
                String image = requiredString(ws, "image", errors);
                String workdir = optionalString(ws, "workdir", errors);
                yield image == null ? null : new WorkspaceSpec.Image(image, workdir);
            }
            case "mirror" -> {
                String r = requiredString(ws, "repo", errors);
                String commit = requiredString(ws, "commit", errors);
                if (r != null && !REPO.matcher(r).matches()) {
                    errors.add(new FieldError("repo", Code.INVALID_VALUE, "must be 'owner/name', got '" + r + "'"));
                }
                yield r == null || commit == null ? null : new WorkspaceSpec.Mirror(r, commit);
            }
            default -> {
                errors.add(new FieldError("workspace.type", Code.UNKNOWN_TYPE,
                        "'" + type.asText() + "' is not one of git, dir, tarball, image"));
                yield null;
            }
        };
        // Field names inside workspace are reported with their prefix.
        for (int i = before; i < errors.size(); i++) {
            FieldError e = errors.get(i);
            if (!e.field().startsWith("workspace.")) {
                errors.set(i, new FieldError("workspace." + e.field(), e.code(), e.message()));
            }
        }
        return spec;
    }

    private String path(ObjectNode ws, List<FieldError> errors) {
        String p = requiredString(ws, "path", errors);
        return p == null ? null : baseDir.resolve(p).normalize().toString();
    }

    private static TestReportSpec testReport(ObjectNode obj, List<FieldError> errors) {
        JsonNode r = obj.get("test_report");
        if (r == null || r.isNull()) {
            errors.add(new FieldError("test_report", Code.MISSING, "required: {\"format\": \"junit-xml\"|\"unittest\"|\"pytest\"}"));
            return null;
        }
        if (!r.isObject()) {
            errors.add(new FieldError("test_report", Code.WRONG_TYPE, "must be an object, got " + kind(r)));
            return null;
        }
        String format = r.path("format").isTextual() ? r.get("format").asText() : null;
        if (format == null) {
            errors.add(new FieldError("test_report.format", Code.MISSING, "required: one of junit-xml, unittest, pytest, log"));
            return null;
        }
        return switch (format) {
            case "junit-xml" -> {
                JsonNode p = r.get("path");
                if (p == null || !p.isTextual() || p.asText().isBlank()) {
                    errors.add(new FieldError("test_report.path", Code.MISSING,
                            "required for junit-xml: a glob of report files, e.g. target/surefire-reports/*.xml"));
                    yield null;
                }
                yield new TestReportSpec.JunitXml(p.asText());
            }
            case "unittest" -> new TestReportSpec.Unittest();
            case "pytest" -> new TestReportSpec.Pytest();
            case "log" -> {
                String parser = r.path("parser").asText("");
                if (!TestReportSpec.Log.PARSERS.contains(parser)) {
                    errors.add(new FieldError("test_report.parser", parser.isEmpty() ? Code.MISSING : Code.UNKNOWN_TYPE,
                            (parser.isEmpty() ? "required for log" : "'" + parser + "' is not a log parser") + ": one of " + TestReportSpec.Log.PARSERS));
                    yield null;
                }
                yield new TestReportSpec.Log(parser);
            }
            default -> {
                errors.add(new FieldError("test_report.format", Code.UNKNOWN_TYPE,
                        "'" + format + "' is not one of junit-xml, unittest, pytest, log"));
                yield null;
            }
        };
    }

    private static Limits limits(ObjectNode obj, List<FieldError> errors) {
        JsonNode l = obj.get("limits");
        Limits d = Limits.defaults();
        if (l == null || l.isNull()) {
            return d;
        }
        if (!l.isObject()) {
            errors.add(new FieldError("limits", Code.WRONG_TYPE, "must be an object, got " + kind(l)));
            return null;
        }
        for (Iterator<Map.Entry<String, JsonNode>> it = l.fields(); it.hasNext(); ) {
            String key = it.next().getKey();
            if (!LIMIT_KEYS.contains(key)) {
                errors.add(new FieldError("limits." + key, Code.INVALID_VALUE, "unknown limit; known: " + LIMIT_KEYS.stream().sorted().toList()));
            }
        }
        Integer steps = positiveInt(l, "max_steps", d.maxSteps(), errors);
        Integer context = positiveInt(l, "max_context_tokens", null, errors);
        Integer episode = positiveInt(l, "episode_timeout_s", d.episodeTimeoutS(), errors);
        Integer test = positiveInt(l, "test_timeout_s", d.testTimeoutS(), errors);
        if (steps == null || episode == null || test == null) {
            return null;
        }
        return new Limits(steps, context, episode, test);
    }

    private static Integer positiveInt(JsonNode l, String key, Integer dflt, List<FieldError> errors) {
        JsonNode v = l.get(key);
        if (v == null || v.isNull()) {
            return dflt;
        }
        if (!v.isIntegralNumber() || !v.canConvertToInt()) {
            errors.add(new FieldError("limits." + key, Code.WRONG_TYPE, "must be an integer, got " + kind(v)));
            return null;
        }
        if (v.asInt() < 1) {
            errors.add(new FieldError("limits." + key, Code.INVALID_VALUE, "must be >= 1, got " + v.asInt()));
            return null;
        }
        return v.asInt();
    }

    /**
     * {@code field} as one of {@code type}'s wire names ({@code split}, {@code grading}); {@code dflt}
     * when absent, null (and an error naming the allowed names) when it is not one of them.
     */
    private static <E extends Enum<E> & WireEnum> E wireValue(ObjectNode obj, String field, Class<E> type, E dflt, List<FieldError> errors) {
        JsonNode v = obj.get(field);
        if (v == null || v.isNull()) {
            return dflt;
        }
        if (!v.isTextual()) {
            String names = Arrays.stream(type.getEnumConstants()).map(e -> "\"" + e.wire() + "\"").collect(Collectors.joining(" or "));
            errors.add(new FieldError(field, Code.WRONG_TYPE, "must be " + names + ", got " + kind(v)));
            return null;
        }
        try {
            return WireEnum.parse(type, v.asText());
        } catch (IllegalArgumentException e) {
            errors.add(new FieldError(field, Code.INVALID_VALUE, e.getMessage()));
            return null;
        }
    }

    static String kind(JsonNode v) {
        if (v == null || v.isNull()) return "null";
        if (v.isTextual()) return "a string";
        if (v.isNumber()) return "a number (" + v.asText() + ")";
        if (v.isBoolean()) return "a boolean";
        if (v.isArray()) return "an array";
        return "an object";
    }
}
