package ai.openalice.rl.events.task;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ai.openalice.rl.events.AgentTask;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

class TaskParserTest {
    private static final ObjectMapper M = new ObjectMapper();
    private final TaskParser parser = new TaskParser(Path.of("/data/tasks"));

    private static ObjectNode json(String s) throws Exception {
        return (ObjectNode) M.readTree(s.replace('\'', '"'));
    }

    private Task valid(ObjectNode node) {
        var r = parser.parse(node);
        return assertInstanceOf(TaskParser.Result.Valid.class, r, r::toString).task();
    }

    private Map<String, FieldError.Code> errors(ObjectNode node) {
        var r = parser.parse(node);
        return assertInstanceOf(TaskParser.Result.Invalid.class, r, r::toString).errors().stream()
                .collect(Collectors.toMap(FieldError::field, FieldError::code));
    }

    /** A SWE-bench instance as it ships: lists as JSON-encoded strings, no alice-rl workspace. */
    private static ObjectNode sweBench() throws Exception {
        return json("{'instance_id':'astropy__astropy-12907','repo':'astropy/astropy','base_commit':'d16bfe05a744909de4b27f5875fe0d4ed41ce607',"
                + "'problem_statement':'Modeling separability_matrix does not compute separability correctly for nested CompoundModels',"
                + "'patch':'diff --git a/x b/x','test_patch':'diff --git a/t b/t',"
                + "'FAIL_TO_PASS':'[\\'astropy/modeling/tests/test_separable.py::test_separable[compound_model6-result6]\\']',"
                + "'PASS_TO_PASS':'[\\'astropy/modeling/tests/test_separable.py::test_coord_matrix\\']',"
                + "'version':'4.3','environment_setup_commit':'298ccb478e6bf092953bca67a3d29dc6c35f6752','hints_text':'',"
                + "'created_at':'2022-03-03T15:14:54Z','test_command':'pytest -rA','test_report':{'format':'pytest'}}");
    }

    @Test
    void sweBenchInstanceParsesUnchangedAndResolvesToTheMirror() throws Exception {
        Task t = valid(sweBench());
        assertEquals("astropy__astropy-12907", t.instanceId());
        assertEquals(List.of("astropy/modeling/tests/test_separable.py::test_separable[compound_model6-result6]"), t.failToPass());
        assertEquals(List.of("astropy/modeling/tests/test_separable.py::test_coord_matrix"), t.passToPass());
        var mirror = assertInstanceOf(WorkspaceSpec.Mirror.class, t.workspace());
        assertEquals(new WorkspaceSpec.Git("/srv/mirrors/astropy__astropy", "d16bfe05a744909de4b27f5875fe0d4ed41ce607"),
                mirror.resolve(Path.of("/srv/mirrors")));
        assertEquals(Limits.defaults(), t.limits());
        assertEquals(Split.TRAIN, t.split());
        assertEquals("4.3", t.version());
    }

    @Test
    void listsMayBeArraysAndUnknownFieldsAreKept() throws Exception {
        var node = sweBench();
        node.putArray("FAIL_TO_PASS").add("a::b");
        node.put("FAIL_TO_PASS_note", "kept");
        node.put("version", 4.3);
        Task t = valid(node);
        assertEquals(List.of("a::b"), t.failToPass());
        assertEquals("kept", t.raw().get("FAIL_TO_PASS_note").asText());
        assertEquals("4.3", t.version());
    }

    @Test
    void aLogReportNamesItsParser() throws Exception {
        var node = sweBench();
        node.putObject("test_report").put("format", "log").put("parser", "maven");
        assertEquals(new TestReportSpec.Log("maven"), valid(node).testReport());
        node.putObject("test_report").put("format", "log").put("parser", "gradle");
        assertEquals(FieldError.Code.UNKNOWN_TYPE, errors(node).get("test_report.parser"));
        node.putObject("test_report").put("format", "log");
        assertEquals(FieldError.Code.MISSING, errors(node).get("test_report.parser"));
    }

    @Test
    void aToolchainNamesAJavaMajorVersion() throws Exception {
        var node = sweBench();
        node.putObject("toolchain").put("java", 11);
        assertEquals(11, valid(node).javaVersion().getAsInt());
        node.putObject("toolchain").put("java", "eleven").put("python", "3.11").put("ruby", "3");
        var errors = errors(node);
        assertEquals(FieldError.Code.INVALID_VALUE, errors.get("toolchain.java"));
        assertEquals(FieldError.Code.WRONG_TYPE, errors.get("toolchain.python"), "an object, in SWE-bench's words");
        assertEquals(FieldError.Code.UNKNOWN_TYPE, errors.get("toolchain.ruby"));
        assertTrue(valid(sweBench()).javaVersion().isEmpty(), "none named: the host's");
    }

    @Test
    void aPythonToolchainIsSweBenchsSpec() throws Exception {
        var node = sweBench();
        node.set("toolchain", json("{'python': {'version': '3.9', 'packages': 'pytest', 'pip_packages': ['six==1.16.0'], 'install': 'python -m pip install .'}}"));
        assertEquals("3.9", valid(node).pythonToolchain().orElseThrow().get("version").asText());
        node.set("toolchain", json("{'python': {'version': '3.9', 'packages_as_of': '2025-02-04T00:00:00Z'}}"));
        assertEquals("2025-02-04T00:00:00Z", valid(node).pythonToolchain().orElseThrow().get("packages_as_of").asText());
        node.set("toolchain", json("{'python': {'version': 'py3', 'packages': ['pytest'], 'pip_packages': 'six', 'packages_as_of': '4 Feb 2025'}}"));
        var errors = errors(node);
        assertEquals(FieldError.Code.INVALID_VALUE, errors.get("toolchain.python.packages_as_of"), "a date pip reads the same on every host");
        assertEquals(FieldError.Code.INVALID_VALUE, errors.get("toolchain.python.version"));
        assertEquals(FieldError.Code.WRONG_TYPE, errors.get("toolchain.python.packages"));
        assertEquals(FieldError.Code.WRONG_TYPE, errors.get("toolchain.python.pip_packages"));
        assertTrue(valid(sweBench()).pythonToolchain().isEmpty());
    }

    @Test
    void relativeWorkspacePathsResolveAgainstTheTaskFilesFolder() throws Exception {
        var node = sweBench();
        node.set("workspace", json("{'type':'git','path':'../repos/calc','commit':'abc'}"));
        node.set("limits", json("{'max_steps':12,'max_context_tokens':4096}"));
        node.put("split", "eval");
        Task t = valid(node);
        assertEquals(new WorkspaceSpec.Git("/data/repos/calc", "abc"), t.workspace());
        assertEquals(new Limits(12, 4096, 300, 300), t.limits());
        assertEquals(Split.EVAL, t.split());
        node.set("workspace", json("{'type':'tarball','path':'/abs/calc.tar.gz'}"));
        assertEquals(new WorkspaceSpec.Tarball("/abs/calc.tar.gz"), valid(node).workspace());
        node.set("workspace", json("{'type':'image','image':'ghcr.io/acme/calc:1'}"));
        assertEquals(new WorkspaceSpec.Image("ghcr.io/acme/calc:1", null), valid(node).workspace());
    }

    @Test
    void agentViewCarriesNoPrivilegedField() throws Exception {
        var view = valid(sweBench()).agentView(3);
        String json = M.writeValueAsString(view);
        assertTrue(!json.contains("diff --git") && !json.contains("test_separable"), json);
        assertEquals(3, view.taskVersion());
    }

    @Test
    void agentViewCarriesTheToolchainAndVersionButNoTestName() throws Exception {
        var row = sweBench();
        row.putObject("toolchain").putObject("python").put("version", "3.9").put("install", "python -m pip install -e .")
                .putArray("pip_packages").add("pytest==7.4.0");
        var view = valid(row).agentView(1);
        assertEquals("4.3", view.version());
        assertEquals("3.9", view.pythonToolchain().orElseThrow().get("version").asText());
        assertEquals("pytest==7.4.0", view.pythonToolchain().orElseThrow().get("pip_packages").get(0).asText());
        assertTrue(view.javaVersion().isEmpty());
        String json = M.writeValueAsString(view);
        assertTrue(!json.contains("test_separable") && !json.contains("diff --git"), json);
        assertTrue(valid(sweBench()).agentView(1).pythonToolchain().isEmpty());
        var odd = M.createObjectNode().put("java", "17.0.2");
        assertTrue(new AgentTask("t", 1, null, "p", view.workspace(), view.limits(), null, odd).javaVersion().isEmpty(),
                "a version another producer spells otherwise names none, rather than failing the episode");
    }

    @Test
    void everyProblemIsReportedWithItsField() throws Exception {
        var node = json("{'instance_id':'bad id','FAIL_TO_PASS':'not json','PASS_TO_PASS':[1],"
                + "'workspace':{'type':'git','path':'x'},'test_report':{'format':'junit-xml'},"
                + "'limits':{'max_steps':0,'max_step':3,'test_timeout_s':'5'},'split':'dev','version':[]}");
        assertEquals(Map.of(
                "instance_id", FieldError.Code.INVALID_VALUE,
                "problem_statement", FieldError.Code.MISSING,
                "FAIL_TO_PASS", FieldError.Code.INVALID_VALUE,
                "PASS_TO_PASS[0]", FieldError.Code.WRONG_TYPE,
                "workspace.commit", FieldError.Code.MISSING,
                "test_command", FieldError.Code.MISSING,
                "test_report.path", FieldError.Code.MISSING,
                "limits.max_steps", FieldError.Code.INVALID_VALUE,
                "limits.max_step", FieldError.Code.INVALID_VALUE,
                "limits.test_timeout_s", FieldError.Code.WRONG_TYPE), withoutVersionAndSplit(errors(node)));
        assertEquals(FieldError.Code.INVALID_VALUE, errors(node).get("split"));
        assertEquals(FieldError.Code.WRONG_TYPE, errors(node).get("version"));
    }

    private static Map<String, FieldError.Code> withoutVersionAndSplit(Map<String, FieldError.Code> m) {
        return m.entrySet().stream().filter(e -> !e.getKey().equals("version") && !e.getKey().equals("split"))
                .collect(Collectors.toMap(Map.Entry::getKey, Map.Entry::getValue));
    }

    @Test
    void workspaceIsRequiredWithoutRepoAndCommit() throws Exception {
        var node = sweBench();
        node.remove("base_commit");
        assertEquals(Map.of("workspace", FieldError.Code.MISSING), errors(node));
        node = sweBench();
        node.set("workspace", json("{'type':'svn','path':'x'}"));
        assertEquals(Map.of("workspace.type", FieldError.Code.UNKNOWN_TYPE), errors(node));
    }

    @Test
    void emptyFailToPassIsRejectedAndInvalidKeepsAUsableId() throws Exception {
        var node = sweBench();
        node.putArray("FAIL_TO_PASS");
        var r = assertInstanceOf(TaskParser.Result.Invalid.class, parser.parse(node));
        assertEquals("astropy__astropy-12907", r.taskId());
        assertEquals("must list at least one test", r.errors().getFirst().message());
        node.put("instance_id", "../etc");
        assertNull(assertInstanceOf(TaskParser.Result.Invalid.class, parser.parse(node)).taskId());
    }

    @Test
    void nonObjectIsRejectedAsAWhole() throws Exception {
        assertEquals(Map.of("$", FieldError.Code.WRONG_TYPE),
                assertInstanceOf(TaskParser.Result.Invalid.class, parser.parse(M.readTree("[1,2]"))).errors().stream()
                        .collect(Collectors.toMap(FieldError::field, FieldError::code)));
    }
}
