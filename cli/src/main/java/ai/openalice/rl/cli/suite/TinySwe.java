package ai.openalice.rl.cli.suite;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import java.util.Set;

/**
 * The bundled task suite: small Python packages, each with one seeded bug from a {@link BugFamily},
 * an issue-style problem statement (the call, what came back, what was expected — never the fix),
 * hidden unittest tests (FAIL_TO_PASS on the buggy function, PASS_TO_PASS on its healthy
 * neighbours), the gold patch and an oracle trajectory (look, fix, run the tests, submit). The
 * training split draws from {@code seed}, the held-out split from another stream, and
 * {@link #HELD_OUT_FAMILIES} appear only in the held-out split, to measure generalisation.
 */
public final class TinySwe {
    public static final Set<String> HELD_OUT_FAMILIES = Set.of("wrong_string_method", "wrong_slice");
    static final String[] PACKAGES = {"toolbox", "mathkit", "numutil", "helpers", "smallcalc", "textkit"};
    static final String[] MODULES = {"ops", "core", "utils", "funcs"};
    static final ObjectMapper JSON = new ObjectMapper();

    private TinySwe() {}

    /** What was written. */
    public record Written(Path train, Path heldOut, int trainCount, int heldOutCount) {}

    public static Written generate(Path out, int count, int heldOut, long seed) throws IOException {
        Files.createDirectories(out.resolve("repos"));
        var trainFamilies = BugFamily.ALL.stream().filter(f -> !HELD_OUT_FAMILIES.contains(f.id())).toList();
        Path train = out.resolve("train.jsonl");
        Path held = out.resolve("heldout.jsonl");
        write(out, train, "train", trainFamilies, count, new Random(seed));
        write(out, held, "eval", BugFamily.ALL, heldOut, new Random(seed ^ 0x5DEECE66DL ^ 0x9E3779B97F4A7C15L));
        return new Written(train, held, count, heldOut);
    }

    private static void write(Path root, Path file, String split, List<BugFamily> families, int count, Random r) throws IOException {
        var lines = new ArrayList<String>();
        for (int i = 0; i < count; i++) {
            BugFamily f = families.get(i % families.size()); // every family in turn, so small suites cover them all
            String id = "tiny-swe__" + split + "-" + i + "-" + f.id().replace('_', '-');
            lines.add(JSON.writeValueAsString(task(root, id, split, f, r)));
        }
        Files.write(file, lines);
    }

    static ObjectNode task(Path root, String id, String split, BugFamily family, Random r) throws IOException {
        String pkg = BugFamily.pick(r, PACKAGES);
        String module = BugFamily.pick(r, MODULES);
        BugFamily.Instance bug = family.make().apply(r);
        var neighbours = neighbours(r, bug);
        String fixed = moduleSource(pkg, module, bug, neighbours, false);
        String buggy = moduleSource(pkg, module, bug, neighbours, true);
        Path repo = root.resolve("repos").resolve(id);
        Files.createDirectories(repo.resolve(pkg));
        Files.createDirectories(repo.resolve("tests"));
        Files.writeString(repo.resolve(pkg).resolve("__init__.py"), "");
        Files.writeString(repo.resolve(pkg).resolve(module + ".py"), buggy);
        Files.writeString(repo.resolve("tests").resolve("__init__.py"), "");
        String visibleClass = capital(module) + "Test";
        var visible = new StringBuilder("import unittest\n\nfrom " + pkg + "." + module + " import " + String.join(", ",
                neighbours.stream().map(Neighbour::name).toList()) + "\n\n\nclass " + visibleClass + "(unittest.TestCase):\n");
        var passToPass = new ArrayList<String>();
        for (var n : neighbours) {
            visible.append("    def test_").append(n.name()).append("(self):\n        self.assertEqual(").append(n.name()).append("(")
                    .append(n.args()).append("), ").append(n.expected()).append(")\n\n");
            passToPass.add("test_" + n.name() + " (tests.test_" + module + "." + visibleClass + ")");
        }
        visible.append("\nif __name__ == \"__main__\":\n    unittest.main()\n");
        Files.writeString(repo.resolve("tests").resolve("test_" + module + ".py"), visible.toString());

        String hiddenClass = "Hidden" + capital(bug.name()) + "Test";
        var hidden = new StringBuilder("import unittest\n\nfrom " + pkg + "." + module + " import " + bug.name() + "\n\n\nclass " + hiddenClass
                + "(unittest.TestCase):\n");
        var failToPass = new ArrayList<String>();
        for (int i = 0; i < bug.cases().size(); i++) {
            var c = bug.cases().get(i);
            hidden.append("    def test_").append(bug.name()).append("_").append(i + 1).append("(self):\n        self.assertEqual(")
                    .append(bug.name()).append("(").append(c.args()).append("), ").append(c.expected()).append(")\n\n");
            failToPass.add("test_" + bug.name() + "_" + (i + 1) + " (tests.test_" + bug.name() + "_hidden." + hiddenClass + ")");
        }
        String hiddenPath = "tests/test_" + bug.name() + "_hidden.py";
        String modulePath = pkg + "/" + module + ".py";
        var c0 = bug.cases().getFirst();
        var t = JSON.createObjectNode();
        t.put("instance_id", id);
        t.put("repo", "tiny-swe/" + pkg);
        t.put("problem_statement", "`" + pkg + "." + module + "." + bug.name() + "(" + c0.args() + ")` returns " + c0.buggy() + ", but I expected "
                + c0.expected() + ". Its docstring says: " + bug.doc());
        t.put("patch", Diff.replace(modulePath, buggy, fixed));
        t.put("test_patch", Diff.newFile(hiddenPath, hidden.toString()));
        t.set("FAIL_TO_PASS", array(failToPass));
        t.set("PASS_TO_PASS", array(passToPass));
        t.put("split", split);
        t.put("family", family.id());
        t.putObject("workspace").put("type", "dir").put("path", "repos/" + id);
        t.put("test_command", "python3 -m unittest -v");
        t.putObject("test_report").put("format", "unittest");
        t.putObject("limits").put("max_steps", 12).put("episode_timeout_s", 120).put("test_timeout_s", 60);
        // training demonstrations sometimes go wrong first and recover (the trainer imitates the recovery, not the mistake);
        // drawn from the id, so the rest of the suite is the same with or without them
        t.set("oracle_trajectory", oracle(pkg, modulePath, buggy, bug, split.equals("train") ? new Random(id.hashCode()) : null));
        return t;
    }

    /**
     * Look at the module, make the one-line fix, run the tests, submit; with {@code mistakes}, a
     * quarter of the demonstrations first view a misspelt path, a quarter first try the fix with
     * old and new swapped, and a quarter copy the buggy line with a character missing, once or twice,
     * then view the module again before the right fix (the built-in model's commonest failure was to
     * give up after a second refusal). Each mistake is refused by the tool. No test run before the fix:
     * the visible tests cover only the healthy neighbours, so it would show nothing the statement
     * does not, and every byte of context costs the CPU-sized model attention time.
     */
    static ArrayNode oracle(String pkg, String modulePath, String buggy, BugFamily.Instance bug, Random mistakes) {
        var a = JSON.createArrayNode();
        if (mistakes != null && mistakes.nextInt(4) == 0) { // a path copied with a letter missing: "does not exist", then the right one
            int drop = mistakes.nextInt(pkg.length());
            String typo = pkg.substring(0, drop) + pkg.substring(drop + 1) + modulePath.substring(pkg.length());
            a.addObject().put("tool", "file_editor").putObject("args").put("command", "view").put("path", typo);
        }
        a.addObject().put("tool", "file_editor").putObject("args").put("command", "view").put("path", modulePath);
        String indent = "    ";
        String fixedLine = indent + bug.body().get(bug.bugLine());
        if (mistakes != null && mistakes.nextInt(4) == 0 && !buggy.contains(fixedLine)) { // old and new swapped: "does not occur"
            a.addObject().put("tool", "file_editor").putObject("args").put("command", "str_replace").put("path", modulePath)
                    .put("old_str", fixedLine).put("new_str", indent + bug.buggyLine());
        }
        if (mistakes != null && mistakes.nextInt(4) == 0) { // the buggy line miscopied, refused once or twice, then looked up again
            int tries = 1 + mistakes.nextInt(2);
            boolean refused = false;
            for (int i = 0; i < tries; i++) {
                String wrong = miscopied(indent + bug.buggyLine(), indent.length(), mistakes);
                if (!buggy.contains(wrong)) {
                    a.addObject().put("tool", "file_editor").putObject("args").put("command", "str_replace").put("path", modulePath)
                            .put("old_str", wrong).put("new_str", fixedLine);
                    refused = true;
                }
            }
            if (refused) {
                a.addObject().put("tool", "file_editor").putObject("args").put("command", "view").put("path", modulePath);
            }
        }
        a.addObject().put("tool", "file_editor").putObject("args").put("command", "str_replace").put("path", modulePath)
                .put("old_str", indent + bug.buggyLine()).put("new_str", fixedLine);
        a.addObject().put("tool", "bash").putObject("args").put("command", "python3 -m unittest");
        a.addObject().put("tool", "submit").putObject("args");
        return a;
    }

    /** The line with one character after its indent left out, the slip a copy by hand makes. */
    static String miscopied(String line, int indent, Random r) {
        int drop = indent + r.nextInt(line.length() - indent);
        return line.substring(0, drop) + line.substring(drop + 1);
    }

    record Neighbour(String name, String params, String body, String args, String expected) {}

    /**
     * Two healthy neighbours of the buggy function. None may share its name, or contain its buggy or
     * fixed line: the fix's {@code old_str} must occur once in the module (a {@code first} neighbour
     * next to a wrong-index {@code return items[0]} made str_replace refuse the oracle's fix).
     */
    static List<Neighbour> neighbours(Random r, BugFamily.Instance bug) {
        var pool = new ArrayList<>(List.of(
                new Neighbour("double", "x", "return x * 2", "21", "42"),
                new Neighbour("negate", "x", "return -x", "5", "-5"),
                new Neighbour("clamp", "x, low, high", "return max(low, min(x, high))", "15, 0, 10", "10"),
                new Neighbour("is_positive", "x", "return x > 0", "3", "True"),
                new Neighbour("first", "items", "return items[0]", "[7, 8, 9]", "7"),
                new Neighbour("square", "x", "return x * x", "9", "81")));
        String fixedLine = bug.body().get(bug.bugLine()).strip();
        pool.removeIf(n -> n.name().equals(bug.name()) || n.body().equals(bug.buggyLine().strip()) || n.body().equals(fixedLine));
        Collections.shuffle(pool, r);
        return List.copyOf(pool.subList(0, 2));
    }

    static String moduleSource(String pkg, String module, BugFamily.Instance bug, List<Neighbour> neighbours, boolean buggy) {
        var s = new StringBuilder("\"\"\"" + pkg + "." + module + ": small helpers.\"\"\"\n");
        for (var n : neighbours.subList(0, 1)) {
            s.append("\n\ndef ").append(n.name()).append("(").append(n.params()).append("):\n    ").append(n.body()).append("\n");
        }
        s.append("\n\ndef ").append(bug.name()).append("(").append(bug.params()).append("):\n    \"\"\"").append(bug.doc()).append("\"\"\"\n");
        for (int i = 0; i < bug.body().size(); i++) {
            s.append("    ").append(buggy && i == bug.bugLine() ? bug.buggyLine() : bug.body().get(i)).append("\n");
        }
        for (var n : neighbours.subList(1, neighbours.size())) {
            s.append("\n\ndef ").append(n.name()).append("(").append(n.params()).append("):\n    ").append(n.body()).append("\n");
        }
        return s.toString();
    }

    private static ArrayNode array(List<String> xs) {
        var a = JSON.createArrayNode();
        xs.forEach(a::add);
        return a;
    }

    private static String capital(String s) {
        var parts = s.split("_");
        var b = new StringBuilder();
        for (String p : parts) {
            b.append(Character.toUpperCase(p.charAt(0))).append(p.substring(1));
        }
        return b.toString();
    }
}
