package ai.openalice.rl.agent.tools;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ai.openalice.rl.sandbox.Sandbox;
import ai.openalice.rl.sandbox.SandboxLimits;
import ai.openalice.rl.sandbox.SandboxSpec;
import ai.openalice.rl.sandbox.WorkspaceSource;
import ai.openalice.rl.sandbox.local.LocalSandboxConfig;
import ai.openalice.rl.sandbox.local.LocalSandboxProvider;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The agent's tools on a real local sandbox; every mistake is an observation the model can act on. */
class ToolsTest {
    private static final ObjectMapper M = new ObjectMapper();
    static LocalSandboxProvider provider;
    static Path repo;
    Sandbox sandbox;
    ToolContext ctx;
    final Tools tools = Tools.standard();

    @BeforeAll
    static void setUp() throws Exception {
        Path root = Path.of("/tmp", "alice-rl-test-tools-" + UUID.randomUUID().toString().substring(0, 8));
        provider = new LocalSandboxProvider(LocalSandboxConfig.defaults().withRoot(root));
        repo = Files.createTempDirectory("tools-repo");
        Files.createDirectories(repo.resolve("calc"));
        Files.writeString(repo.resolve("calc/ops.py"), "def add(a, b):\n    return a - b\n\n\ndef sub(a, b):\n    return a - b\n");
        Files.writeString(repo.resolve("README.md"), "The calc package.\n");
    }

    @AfterAll
    static void tearDown() {
        provider.close();
    }

    @BeforeEach
    void open() {
        sandbox = provider.create(SandboxSpec.of(new WorkspaceSource.Dir(repo)).withLimits(SandboxLimits.defaults().withOutputBytes(2048)));
        ctx = new ToolContext(sandbox, Duration.ofSeconds(20), Duration.ofSeconds(30));
    }

    @AfterEach
    void close() {
        sandbox.close();
    }

    private Observation call(String tool, String json) throws Exception {
        return tools.call(tool, (ObjectNode) M.readTree(json.replace('\'', '"')), ctx);
    }

    @Test
    void bashReportsExitCodeOutputTimeoutAndCut() throws Exception {
        var ok = call("bash", "{'command': 'echo hi; echo warn >&2; exit 4'}");
        assertEquals("[exit code 4]\nhi\n[stderr]\nwarn\n", ok.text());
        assertTrue(ok.error());
        var slow = call("bash", "{'command': 'sleep 30', 'timeout': 1}");
        assertEquals("[the command timed out after 1 s and was killed]\n", slow.text());
        var loud = call("bash", "{'command': 'seq 1 100000'}");
        assertTrue(loud.text().contains("[stdout was cut: only its beginning and end are shown]"), loud.text());
        assertTrue(loud.text().contains("\n100000\n"), "the tail survives");
        assertEquals("bash: missing argument 'command'", call("bash", "{}").text());
    }

    @Test
    void searchFindsNamesAndLinesAndIsInjectionProof() throws Exception {
        var r = call("search", "{'pattern': 'return a - b'}");
        assertEquals("No matching files.\nMatching lines:\n./calc/ops.py:2:    return a - b\n./calc/ops.py:6:    return a - b\n", r.text());
        var names = call("search", "{'pattern': 'ops', 'path': 'calc'}");
        assertTrue(names.text().startsWith("Matching files:\ncalc/ops.py\n"), names.text());
        var re = call("search", "{'pattern': 'def (add|sub)', 'regex': 'true'}");
        assertTrue(re.text().contains("ops.py:1:def add") && re.text().contains("ops.py:5:def sub"), re.text());
        var evil = tools.call("search", M.createObjectNode().put("pattern", "'; touch /workspace/pwned; '"), ctx);
        assertFalse(evil.error());
        assertEquals(Sandbox.FileKind.MISSING, sandbox.stat("pwned"));
        assertEquals("search: no such path: nowhere", call("search", "{'pattern': 'x', 'path': 'nowhere'}").text());
    }

    @Test
    void viewNumbersLinesAndChecksRanges() throws Exception {
        assertEquals("     1\tdef add(a, b):\n     2\t    return a - b\n", call("file_editor",
                "{'command': 'view', 'path': 'calc/ops.py', 'view_range': [1, 2]}").text());
        assertEquals("file_editor: view_range [5, 9] is outside 1..6 (calc/ops.py has 6 lines)",
                call("file_editor", "{'command': 'view', 'path': 'calc/ops.py', 'view_range': [5, 9]}").text());
        var dir = call("file_editor", "{'command': 'view', 'path': '.'}");
        assertTrue(dir.text().contains("./calc/ops.py") && !dir.text().contains(".git"), dir.text());
        assertEquals("file_editor: nope.py does not exist", call("file_editor", "{'command': 'view', 'path': 'nope.py'}").text());
    }

    @Test
    void strReplaceNeedsExactlyOneOccurrenceAndUndoRestores() throws Exception {
        var twice = call("file_editor", "{'command': 'str_replace', 'path': 'calc/ops.py', 'old_str': 'return a - b', 'new_str': 'return a + b'}");
        assertEquals("file_editor: old_str occurs 2 times in calc/ops.py (lines [2, 6]); include more surrounding lines to make it unique",
                twice.text());
        var none = call("file_editor", "{'command': 'str_replace', 'path': 'calc/ops.py', 'old_str': 'return a * b', 'new_str': ''}");
        assertEquals("file_editor: old_str does not occur in calc/ops.py; view the file and copy the text exactly", none.text());
        var once = call("file_editor",
                "{'command': 'str_replace', 'path': 'calc/ops.py', 'old_str': 'add(a, b):\\n    return a - b', 'new_str': 'add(a, b):\\n    return a + b'}");
        assertFalse(once.error(), once.text());
        assertTrue(once.text().contains("     2\t    return a + b\n"), once.text());
        assertEquals("def add(a, b):\n    return a + b\n\n\ndef sub(a, b):\n    return a - b\n", sandbox.readFile("calc/ops.py"));
        assertTrue(sandbox.diff().contains("+    return a + b"));
        call("file_editor", "{'command': 'undo_edit', 'path': '/workspace/calc/ops.py'}");
        assertEquals("", sandbox.diff());
        assertEquals("file_editor: no edit of calc/ops.py to undo", call("file_editor", "{'command': 'undo_edit', 'path': 'calc/ops.py'}").text());
    }

    @Test
    void createAndInsert() throws Exception {
        assertEquals("file_editor: README.md already exists; use str_replace or insert to change it",
                call("file_editor", "{'command': 'create', 'path': 'README.md', 'file_text': 'x'}").text());
        call("file_editor", "{'command': 'create', 'path': 'tests/test_add.py', 'file_text': 'import calc\\n'}");
        call("file_editor", "{'command': 'insert', 'path': 'tests/test_add.py', 'insert_line': 1, 'new_str': 'assert True'}");
        call("file_editor", "{'command': 'insert', 'path': 'tests/test_add.py', 'insert_line': 0, 'new_str': '# header'}");
        assertEquals("# header\nimport calc\nassert True\n", sandbox.readFile("tests/test_add.py"));
        assertEquals("file_editor: insert_line 9 is outside 0..3",
                call("file_editor", "{'command': 'insert', 'path': 'tests/test_add.py', 'insert_line': 9, 'new_str': 'x'}").text());
        call("file_editor", "{'command': 'undo_edit', 'path': 'tests/test_add.py'}");
        call("file_editor", "{'command': 'undo_edit', 'path': 'tests/test_add.py'}");
        call("file_editor", "{'command': 'undo_edit', 'path': 'tests/test_add.py'}");
        assertEquals(Sandbox.FileKind.MISSING, sandbox.stat("tests/test_add.py"));
    }

    @Test
    void escapesAndBadCallsAreObservations() throws Exception {
        sandbox.exec("ln -s /etc out", Duration.ofSeconds(10));
        assertEquals("/etc/passwd is outside the workspace; use a path under /workspace or a relative one",
                call("file_editor", "{'command': 'view', 'path': '/etc/passwd'}").text());
        assertEquals("../../etc/passwd leads outside the workspace ('..' above /workspace)",
                call("file_editor", "{'command': 'view', 'path': '../../etc/passwd'}").text());
        assertEquals("out/passwd goes through a symlink (out) that points outside the workspace",
                call("file_editor", "{'command': 'view', 'path': 'out/passwd'}").text());
        assertEquals("file_editor: unknown command 'delete'; use view, create, str_replace, insert or undo_edit",
                call("file_editor", "{'command': 'delete', 'path': 'README.md'}").text());
        assertEquals("unknown tool 'python'; available: bash, search, file_editor, submit", call("python", "{}").text());
        var submit = call("submit", "{}");
        assertTrue(submit.terminal());
    }
}
