package ai.openalice.rl.agent.tools;

import ai.openalice.rl.sandbox.ExecResult;
import ai.openalice.rl.sandbox.Shell;
import ai.openalice.rl.sandbox.WorkspacePaths;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.time.Duration;

/**
 * {@code search}: files whose name contains the pattern, and lines that contain it (fixed string
 * by default, a regular expression with {@code regex=true}), under a folder of the workspace.
 * Results are capped; the cap is said.
 */
public final class SearchTool implements Tool {
    static final int MAX_LINES = 100;
    static final int MAX_FILES = 50;

    @Override
    public String name() {
        return "search";
    }

    @Override
    public String usage() {
        return "search(pattern, path?, regex?) — find files whose name contains pattern and lines matching it under path (default .).";
    }

    @Override
    public ObjectNode parameters() {
        return Tools.schema("""
                {"type": "object", "properties": {"pattern": {"type": "string"},
                 "path": {"type": "string", "description": "folder to search, default ."},
                 "regex": {"type": "boolean", "description": "pattern is a regular expression"}}, "required": ["pattern"]}""");
    }

    @Override
    public Observation run(ObjectNode args, ToolContext ctx) {
        String pattern = Args.required(args, name(), "pattern");
        if (pattern.isEmpty()) {
            return Observation.error("search: the pattern is empty");
        }
        String workdir = ctx.sandbox().workdir();
        String path = WorkspacePaths.relative(workdir, Args.optional(args, "path", ".")).toString();
        if (path.isEmpty()) {
            path = ".";
        }
        boolean regex = Boolean.parseBoolean(Args.optional(args, "regex", "false"));
        String p = Shell.quote(pattern);
        String dir = Shell.quote(path);
        // Two greps in one sandbox call: names first, then contents. LC_ALL=C keeps grep fast on large trees.
        String cmd = "cd " + Shell.quote(workdir) + " && [ -e " + dir + " ] || { echo 'search: no such path: '" + dir + " >&2; exit 2; }; "
                + "export LC_ALL=C; echo '### files'; find " + dir + " -name .git -prune -o -type f -print 2>/dev/null | grep -F -- "
                + p + " | head -n " + (MAX_FILES + 1) + "; "
                + "echo '### lines'; grep -rnI --exclude-dir=.git " + (regex ? "-E" : "-F") + " -e " + p + " -- " + dir
                + " 2>/dev/null | cut -c1-300 | head -n " + (MAX_LINES + 1);
        ExecResult r = ctx.sandbox().exec(cmd, Duration.ofSeconds(60));
        if (r.exitCode() == 2 && r.stderr().startsWith("search: no such path")) {
            return Observation.error(r.stderr().strip());
        }
        if (r.timedOut()) {
            return Observation.error("search: timed out after 60 s; narrow the path");
        }
        String[] parts = r.stdout().split("### lines\n", 2);
        String files = parts[0].replace("### files\n", "");
        String lines = parts.length > 1 ? parts[1] : "";
        return Observation.ok(section("files", files, MAX_FILES) + section("lines", lines, MAX_LINES));
    }

    private static String section(String what, String body, int max) {
        String[] rows = body.isEmpty() ? new String[0] : body.split("\n");
        var sb = new StringBuilder();
        if (rows.length == 0) {
            return "No matching " + what + ".\n";
        }
        sb.append("Matching ").append(what).append(":\n");
        for (int i = 0; i < Math.min(rows.length, max); i++) {
            sb.append(rows[i]).append('\n');
        }
        if (rows.length > max) {
            sb.append("[more than ").append(max).append(" matching ").append(what).append("; narrow the pattern or the path]\n");
        }
        return sb.toString();
    }
}
