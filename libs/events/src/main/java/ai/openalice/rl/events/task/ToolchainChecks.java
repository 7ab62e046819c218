package ai.openalice.rl.events.task;

import ai.openalice.rl.events.task.FieldError.Code;
import com.fasterxml.jackson.databind.JsonNode;
import java.util.List;

/** The checks of a task's {@code toolchain} field (docs/task-format.md): which toolchains, in which words. */
final class ToolchainChecks {
    private ToolchainChecks() {}

    /** {@code toolchain.python.packages_as_of}: a date (midnight UTC) or a UTC date-time, as pip's --uploaded-prior-to reads them. */
    private static final String AS_OF = "\\d{4}-\\d{2}-\\d{2}(T\\d{2}:\\d{2}(:\\d{2})?Z)?";

    /** {@code toolchain}: optional, {@code {"java": "11"}} (a major version, as a string or a number) and/or {@code {"python": {...}}}. */
    static void check(JsonNode t, List<FieldError> errors) {
        if (t == null || t.isNull()) {
            return;
        }
        if (!t.isObject()) {
            errors.add(new FieldError("toolchain", Code.WRONG_TYPE, "must be an object like {\"java\": \"11\"}, got " + TaskParser.kind(t)));
            return;
        }
        t.properties().forEach(e -> {
            if (e.getKey().equals("python")) {
                python(e.getValue(), errors);
            } else if (e.getKey().equals("unroutable")) {
                unroutable(e.getValue(), errors);
            } else if (e.getKey().equals("stand_ins")) {
                standIns(e.getValue(), errors);
            } else if (!e.getKey().equals("java")) {
                errors.add(new FieldError("toolchain." + e.getKey(), Code.UNKNOWN_TYPE, "unknown toolchain (java, python, unroutable and stand_ins are known)"));
            } else if (!e.getValue().asText().matches("[1-9][0-9]?")) {
                errors.add(new FieldError("toolchain.java", Code.INVALID_VALUE, "must be a Java major version like 8, 11 or 17, got " + e.getValue()));
            }
        });
    }

    /**
     * {@code toolchain.python}: {@code {"version": "3.9"}} and, in SWE-bench's words, optional
     * {@code packages} (a space-separated list, or {@code requirements.txt}), {@code pip_packages}
     * (an array of requirements), {@code requirements} and {@code env_yml} (where a
     * {@code requirements.txt} or {@code environment.yml} spec's file may be, first found wins),
     * {@code setup_commit} (the commit those files are read at: the row's environment_setup_commit),
     * {@code pre_install} (SWE-bench's steps before the install: Debian packages the host must have,
     * edits to the repository), {@code install} (the command that installs the project) and, alice-rl's
     * own, {@code packages_as_of} (an ISO date or UTC date-time: packages resolved from PyPI as it was
     * then, as SWE-bench's images resolved theirs when they were built).
     */
    private static void python(JsonNode p, List<FieldError> errors) {
        if (!p.isObject()) {
            errors.add(new FieldError("toolchain.python", Code.WRONG_TYPE, "must be an object like {\"version\": \"3.9\"}, got " + TaskParser.kind(p)));
            return;
        }
        if (!p.path("version").asText("").matches("[23]\\.[0-9]{1,2}")) {
            errors.add(new FieldError("toolchain.python.version", Code.INVALID_VALUE, "must be a Python version like 3.9, got " + p.get("version")));
        }
        for (String f : List.of("packages", "install", "setup_commit", "packages_as_of")) {
            if (p.has(f) && !p.get(f).isTextual()) {
                errors.add(new FieldError("toolchain.python." + f, Code.WRONG_TYPE, "must be a string, got " + TaskParser.kind(p.get(f))));
            }
        }
        if (p.path("setup_commit").isTextual() && !p.get("setup_commit").asText().matches("[0-9a-f]{7,40}")) {
            errors.add(new FieldError("toolchain.python.setup_commit", Code.INVALID_VALUE, "must be a commit id (7 to 40 hex digits), got " + p.get("setup_commit")));
        }
        if (p.path("packages_as_of").isTextual() && !p.get("packages_as_of").asText().matches(AS_OF)) {
            errors.add(new FieldError("toolchain.python.packages_as_of", Code.INVALID_VALUE,
                    "must be a date like 2025-02-04 or a UTC time like 2025-02-04T00:00:00Z, got " + p.get("packages_as_of")));
        }
        for (String f : List.of("pip_packages", "requirements", "env_yml", "pre_install")) {
            if (p.has(f) && (!p.get(f).isArray() || !allText(p.get(f)))) {
                errors.add(new FieldError("toolchain.python." + f, Code.WRONG_TYPE, "must be an array of strings"));
            }
        }
    }

    /**
     * {@code toolchain.unroutable}: IPv4 networks ({@code "10.255.255.0/24"}) that swallow connections
     * in the sandbox, as unroutable addresses do on a real network: a connection there times out
     * rather than failing at once (tests of timeouts connect to one).
     */
    private static void unroutable(JsonNode u, List<FieldError> errors) {
        if (!u.isArray() || !allText(u)) {
            errors.add(new FieldError("toolchain.unroutable", Code.WRONG_TYPE, "must be an array of IPv4 networks like [\"10.255.255.0/24\"]"));
            return;
        }
        for (JsonNode n : u) {
            if (!n.asText().matches("(\\d{1,3}\\.){3}\\d{1,3}/\\d{1,2}")) {
                errors.add(new FieldError("toolchain.unroutable", Code.INVALID_VALUE, "must be IPv4 networks like 10.255.255.0/24, got " + n));
            }
        }
    }

    /** {@code toolchain.stand_ins}: what the test run gets on the sandbox's loopback instead of the internet; one is known, {@code httpbin}. */
    private static void standIns(JsonNode s, List<FieldError> errors) {
        if (!s.isArray() || !allText(s)) {
            errors.add(new FieldError("toolchain.stand_ins", Code.WRONG_TYPE, "must be an array of stand-in names like [\"httpbin\"]"));
            return;
        }
        for (JsonNode n : s) {
            if (!n.asText().equals("httpbin")) {
                errors.add(new FieldError("toolchain.stand_ins", Code.INVALID_VALUE, "unknown stand-in " + n + " (httpbin is known)"));
            }
        }
    }

    private static boolean allText(JsonNode array) {
        for (JsonNode e : array) {
            if (!e.isTextual()) {
                return false;
            }
        }
        return true;
    }
}
