package ai.openalice.rl.agent.tools;

import ai.openalice.rl.sandbox.Sandbox;
import ai.openalice.rl.sandbox.Shell;
import ai.openalice.rl.sandbox.WorkspacePaths;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * {@code file_editor}: {@code view} (numbered lines, optional range; a folder lists two levels),
 * {@code create}, {@code str_replace} (the old string must occur exactly once), {@code insert}
 * after a line, and {@code undo_edit}. Paths are confined to the workspace by the sandbox.
 */
public final class FileEditorTool implements Tool {
    static final int SNIPPET_CONTEXT = 4;
    static final int MAX_VIEW_LINES = 400;

    @Override
    public String name() {
        return "file_editor";
    }

    @Override
    public String usage() {
        return "file_editor(command, path, ...) — command is one of: view (view_range=[start, end]?), create (file_text), "
                + "str_replace (old_str, new_str), insert (insert_line, new_str), undo_edit.";
    }

    @Override
    public ObjectNode parameters() {
        return Tools.schema("""
                {"type": "object", "properties": {
                 "command": {"type": "string", "enum": ["view", "create", "str_replace", "insert", "undo_edit"]},
                 "path": {"type": "string", "description": "relative to the repository root"},
                 "view_range": {"type": "array", "items": {"type": "integer"}, "description": "[start, end] lines for view"},
                 "file_text": {"type": "string", "description": "content for create"},
                 "old_str": {"type": "string", "description": "exact text to replace, for str_replace"},
                 "new_str": {"type": "string", "description": "replacement for str_replace, text for insert"},
                 "insert_line": {"type": "integer", "description": "insert after this line"}}, "required": ["command", "path"]}""");
    }

    @Override
    public Observation run(ObjectNode args, ToolContext ctx) {
        String command = Args.required(args, name(), "command");
        String path = Args.required(args, name(), "path");
        String key = WorkspacePaths.relative(ctx.sandbox().workdir(), path).toString();
        return switch (command) {
            case "view" -> view(ctx.sandbox(), path, args.get("view_range"));
            case "create" -> create(ctx, path, key, Args.required(args, name(), "file_text"));
            case "str_replace" -> replace(ctx, path, key, Args.required(args, name(), "old_str"), Args.optional(args, "new_str", ""));
            case "insert" -> insert(ctx, path, key, args);
            case "undo_edit" -> undo(ctx, path, key);
            default -> Observation.error("file_editor: unknown command '" + command + "'; use view, create, str_replace, insert or undo_edit");
        };
    }

    private Observation view(Sandbox s, String path, JsonNode range) {
        switch (s.stat(path)) {
            case MISSING -> {
                return Observation.error("file_editor: " + path + " does not exist");
            }
            case DIRECTORY -> {
                String rel = WorkspacePaths.relative(s.workdir(), path).toString();
                var r = s.exec("find " + Shell.quote(rel.isEmpty() ? "." : rel) + " -maxdepth 2 -not -path '*/.*' | sort | head -n 300",
                        Duration.ofSeconds(30));
                return Observation.ok("Files and folders in " + path + " (two levels, hidden ones left out):\n" + r.stdout());
            }
            case FILE -> { }
        }
        String content = s.readFile(path);
        List<String> lines = lines(content);
        int from = 1;
        int to = lines.size();
        if (range != null && !range.isNull()) {
            if (!range.isArray() || range.size() != 2 || !range.get(0).canConvertToInt() || !range.get(1).canConvertToInt()) {
                return Observation.error("file_editor: view_range must be [start, end] (end -1 for the end of the file)");
            }
            from = range.get(0).asInt();
            to = range.get(1).asInt() == -1 ? lines.size() : range.get(1).asInt();
            if (from < 1 || from > Math.max(lines.size(), 1) || to < from || to > lines.size()) {
                return Observation.error("file_editor: view_range [" + range.get(0) + ", " + range.get(1) + "] is outside 1.." + lines.size()
                        + " (" + path + " has " + lines.size() + " lines)");
            }
        }
        boolean cut = to - from + 1 > MAX_VIEW_LINES;
        int last = cut ? from + MAX_VIEW_LINES - 1 : to;
        String body = numbered(lines, from, last);
        return Observation.ok(body + (cut ? "[showing lines " + from + "-" + last + " of " + lines.size()
                + "; use view_range to see more]\n" : ""));
    }

    private Observation create(ToolContext ctx, String path, String key, String text) {
        if (ctx.sandbox().stat(path) != Sandbox.FileKind.MISSING) {
            return Observation.error("file_editor: " + path + " already exists; use str_replace or insert to change it");
        }
        ctx.sandbox().writeFile(path, text);
        ctx.rememberBefore(key, null);
        return Observation.ok("Created " + path + " (" + lines(text).size() + " lines).");
    }

    private Observation replace(ToolContext ctx, String path, String key, String oldStr, String newStr) {
        if (oldStr.isEmpty()) {
            return Observation.error("file_editor: old_str is empty; give the exact text to replace");
        }
        if (ctx.sandbox().stat(path) != Sandbox.FileKind.FILE) {
            return Observation.error("file_editor: " + path + " is not a file");
        }
        String content = ctx.sandbox().readFile(path);
        List<Integer> at = occurrences(content, oldStr);
        if (at.isEmpty()) {
            return Observation.error("file_editor: old_str does not occur in " + path + "; view the file and copy the text exactly");
        }
        if (at.size() > 1) {
            var lineNos = at.stream().map(i -> lineOf(content, i)).toList();
            return Observation.error("file_editor: old_str occurs " + at.size() + " times in " + path + " (lines " + lineNos
                    + "); include more surrounding lines to make it unique");
        }
        int i = at.getFirst();
        String updated = content.substring(0, i) + newStr + content.substring(i + oldStr.length());
        ctx.sandbox().writeFile(path, updated);
        ctx.rememberBefore(key, content);
        int line = lineOf(content, i);
        return Observation.ok("Edited " + path + ". The changed region:\n" + snippet(updated, line, lines(newStr).size()));
    }

    private Observation insert(ToolContext ctx, String path, String key, ObjectNode args) {
        Integer after = Args.optionalInt(args, name(), "insert_line");
        if (after == null) {
            return Observation.error("file_editor: missing argument 'insert_line' (0 inserts at the top)");
        }
        String text = Args.required(args, name(), "new_str");
        if (ctx.sandbox().stat(path) != Sandbox.FileKind.FILE) {
            return Observation.error("file_editor: " + path + " is not a file");
        }
        String content = ctx.sandbox().readFile(path);
        List<String> lines = new ArrayList<>(lines(content));
        if (after < 0 || after > lines.size()) {
            return Observation.error("file_editor: insert_line " + after + " is outside 0.." + lines.size());
        }
        List<String> added = lines(text);
        lines.addAll(after, added);
        String updated = String.join("\n", lines) + (content.endsWith("\n") || content.isEmpty() ? "\n" : "");
        ctx.sandbox().writeFile(path, updated);
        ctx.rememberBefore(key, content);
        return Observation.ok("Inserted " + added.size() + " line(s) after line " + after + " of " + path + ":\n"
                + snippet(updated, after + 1, added.size()));
    }

    private Observation undo(ToolContext ctx, String path, String key) {
        String before = ctx.popBefore(key);
        if (before == null) {
            return Observation.error("file_editor: no edit of " + path + " to undo");
        }
        if (before.equals(ToolContext.NONE)) {
            ctx.sandbox().exec("rm -f -- " + Shell.quote(key), Duration.ofSeconds(30));
            return Observation.ok("Undid the creation of " + path + ".");
        }
        ctx.sandbox().writeFile(path, before);
        return Observation.ok("Undid the last edit of " + path + ".");
    }

    static List<String> lines(String content) {
        if (content.isEmpty()) {
            return List.of();
        }
        String body = content.endsWith("\n") ? content.substring(0, content.length() - 1) : content;
        return List.of(body.split("\n", -1));
    }

    static String numbered(List<String> lines, int from, int to) {
        var sb = new StringBuilder();
        for (int n = from; n <= to; n++) {
            sb.append(String.format("%6d\t%s%n", n, lines.get(n - 1)));
        }
        return sb.toString();
    }

    private static String snippet(String content, int firstChangedLine, int changedLines) {
        List<String> lines = lines(content);
        int from = Math.max(1, firstChangedLine - SNIPPET_CONTEXT);
        int to = Math.min(lines.size(), firstChangedLine + Math.max(changedLines, 1) - 1 + SNIPPET_CONTEXT);
        return from > to ? "" : numbered(lines, from, to);
    }

    private static List<Integer> occurrences(String s, String sub) {
        var at = new ArrayList<Integer>();
        for (int i = s.indexOf(sub); i >= 0; i = s.indexOf(sub, i + 1)) {
            at.add(i);
        }
        return at;
    }

    private static int lineOf(String s, int index) {
        int line = 1;
        for (int i = 0; i < index; i++) {
            if (s.charAt(i) == '\n') {
                line++;
            }
        }
        return line;
    }
}
