package ai.openalice.rl.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ai.openalice.rl.cli.imports.DatasetFormat;
import ai.openalice.rl.events.task.TaskReader;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.DriverManager;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * {@code tasks import}: rows in the shapes the datasets ship (SWE-bench's JSON-string test lists,
 * SWE-PolyBench's CSV with Python list literals, Parquet) become valid tasks with a test command
 * from the spec table; rows that cannot be mapped are reported with row, field and reason, and the
 * rest is imported.
 */
class ImportCommandTest {
    static final ObjectMapper M = new ObjectMapper();
    static final String PATCH = "diff --git a/src/A.java b/src/A.java\n--- a/src/A.java\n+++ b/src/A.java\n@@ -1 +1 @@\n-class A {}\n+class A { }\n";

    @TempDir
    Path dir;

    private record Run(int exit, String out, String err) {}

    private static Run run(String... args) {
        var out = new StringWriter();
        var err = new StringWriter();
        int exit = new CommandLine(new AliceRl()).setOut(new PrintWriter(out)).setErr(new PrintWriter(err)).execute(args);
        return new Run(exit, out.toString(), err.toString());
    }

    static String sweBenchRow(String id, String repo, String f2p) throws Exception {
        var row = M.createObjectNode().put("instance_id", id).put("repo", repo).put("base_commit", "0123456789abcdef0123456789abcdef01234567")
                .put("problem_statement", "Parsing an empty enum body fails.").put("patch", PATCH).put("test_patch", "")
                .put("FAIL_TO_PASS", f2p).put("PASS_TO_PASS", "[]").put("version", "3.25").put("created_at", "2023-05-01T00:00:00Z");
        return M.writeValueAsString(row);
    }

    @Test
    void sweBenchRowsBecomeTasksAndBadRowsAreNamed() throws Exception {
        Path in = dir.resolve("multilingual.jsonl");
        Files.write(in, List.of(
                sweBenchRow("javaparser__javaparser-4001", "javaparser/javaparser",
                        "[\"com.github.javaparser.ast.body.EnumTest#emptyBody\", \"com.github.javaparser.ParserTest#parsesEnums\"]"),
                sweBenchRow("acme__unknown-1", "acme/unknown", "[\"x.YTest#a\"]"),
                "{not json",
                sweBenchRow("javaparser__javaparser-4002", "javaparser/javaparser", "[\"unterminated")));
        Path out = dir.resolve("tasks.jsonl");
        var r = run("tasks", "import", "--from", "swe-bench-multilingual", in.toString(), "--out", out.toString());
        assertEquals(TasksCommand.SOME_REJECTED, r.exit(), r.err());
        assertTrue(r.out().contains(in + ":2: test_command: the row has none, and the repository spec table has no entry for repo 'acme/unknown'"), r.out());
        assertTrue(r.out().contains(in + ":3: $: not JSON"), r.out());
        assertTrue(r.out().contains(in + ":4: FAIL_TO_PASS: "), r.out());
        assertTrue(r.out().contains("1 imported, 3 rejected"), r.out());
        JsonNode task = M.readTree(Files.readAllLines(out).getFirst());
        assertEquals("mvn -B -q test -DfailIfNoTests=false -Dsurefire.failIfNoSpecifiedTests=false"
                + " -Dtest=com.github.javaparser.ast.body.EnumTest,com.github.javaparser.ParserTest", task.get("test_command").asText());
        assertEquals("junit-xml", task.get("test_report").get("format").asText());
        assertEquals(2, task.get("FAIL_TO_PASS").size(), "the JSON string became an array");
        assertEquals("3.25", task.get("version").asText(), "the row's fields are kept");
        assertTrue(TaskReader.read(out).getFirst() instanceof TaskReader.Line.Valid, "a valid task");
    }

    /**
     * Rows of repositories alice-rl's own table lacks take SWE-bench's spec (its command, parser and
     * JDK); a version neither knows, or one SWE-bench cannot run either, is refused naming it; a 5.x
     * row's own eval_script and log_parser come first. Expected commands are SWE-bench's, by hand
     * from its constants: requests 2.0 runs {@code pytest -rA} and the test patch's files.
     */
    @Test
    void sweBenchsTableCoversTheRepositoriesOursLacks() throws Exception {
        String testPatch = "diff --git a/test_requests.py b/test_requests.py\n--- a/test_requests.py\n+++ b/test_requests.py\n@@ -1 +1 @@\n-a\n+b\n";
        var gson = (ObjectNode) M.readTree(sweBenchRow("google__gson-2158", "google/gson", "[\"com.google.gson.functional.PrimitiveTest#testByteSerialization\"]"));
        gson.put("version", "2158");
        var requests = (ObjectNode) M.readTree(sweBenchRow("psf__requests-1142", "psf/requests", "[\"test_requests.py::RequestsTestCase::test_no_content_length\"]"));
        requests.put("version", "1.1").put("test_patch", testPatch);
        var unknown = requests.deepCopy().put("instance_id", "psf__requests-9").put("version", "9.9");
        var dbt = requests.deepCopy().put("instance_id", "dbt-labs__dbt-core-1").put("repo", "dbt-labs/dbt-core").put("version", "0.13");
        var own = requests.deepCopy().put("instance_id", "psf__requests-6").put("version", "9.9")
                .put("install_config", "{\"test_cmd\": \"pytest -rA tests/test_own.py\", \"log_parser\": \"parse_log_pytest\"}");
        var five = requests.deepCopy().put("instance_id", "psf__requests-5").put("version", "9.9").put("log_parser", "parse_log_requests")
                .put("eval_script", "#!/bin/bash\nset -uxo pipefail\nsource /opt/miniconda3/bin/activate\nconda activate testbed\ncd /testbed\n"
                        + ": '>>>>> Start Test Output'\npytest -rA tests/test_requests.py\n: '>>>>> End Test Output'\n");
        Path in = dir.resolve("swebench.jsonl");
        Files.write(in, List.of(M.writeValueAsString(gson), M.writeValueAsString(requests), M.writeValueAsString(unknown), M.writeValueAsString(dbt),
                M.writeValueAsString(five), M.writeValueAsString(own)));
        Path out = dir.resolve("swebench-tasks.jsonl");
        var r = run("tasks", "import", "--from", "swe-bench", in.toString(), "--out", out.toString());
        assertEquals(TasksCommand.SOME_REJECTED, r.exit(), r.out() + r.err());
        assertTrue(r.out().contains(in + ":3: test_command: the row has none, and the repository spec table has no entry for repo 'psf/requests' at version '9.9'"
                + " (SWE-bench's table knows 28 versions of it, 0.7, 0.8, 0.9, 0.11, 0.13, 0.14 … 3.0)"), r.out());
        assertTrue(r.out().contains(in + ":4: test_command: the row has none, and SWE-bench's spec of dbt-labs/dbt-core 0.13 names no test command"), r.out());
        assertTrue(r.out().contains("--specs"), r.out());
        var tasks = Files.readAllLines(out).stream().map(ImportCommandTest::readTree).toList();
        assertEquals(4, tasks.size(), r.out());
        assertEquals("pytest -rA tests/test_own.py", tasks.get(3).get("test_command").asText(), "a version no table knows, with its own install_config");
        assertEquals("mvn -B -q test -pl gson -DfailIfNoTests=false -Dsurefire.failIfNoSpecifiedTests=false -Dtest=com.google.gson.functional.PrimitiveTest",
                tasks.get(0).get("test_command").asText(), "alice-rl's entry for gson: one mvn run of the gson module");
        assertEquals("11", tasks.get(0).get("toolchain").get("java").asText(), "the JDK of SWE-bench's image of gson 2158");
        assertEquals("set -uxo pipefail\n[ ! -f /opt/miniconda3/bin/activate ] || { source /opt/miniconda3/bin/activate && conda activate testbed; }"
                + "\npython -m pip install .\npytest -rA test_requests.py", tasks.get(1).get("test_command").asText());
        assertEquals("pytest-options", tasks.get(1).get("test_report").get("parser").asText(), "requests' parser is SWE-bench's pytest_options");
        assertEquals("swebench:psf/requests@1.1", tasks.get(1).get("spec").asText());
        assertEquals("{\"python\":{\"version\":\"3.9\",\"packages\":\"pytest\",\"install\":\"python -m pip install .\",\"packages_as_of\":\"2025-01-05\"},\"unroutable\":[\"10.255.255.0/24\"],\"stand_ins\":[\"httpbin\"]}",
                tasks.get(1).get("toolchain").toString(), "the environment SWE-bench's spec of requests 1.1 builds");
        assertEquals("set -uxo pipefail\n[ ! -f /opt/miniconda3/bin/activate ] || { source /opt/miniconda3/bin/activate && conda activate testbed; }"
                + "\npytest -rA tests/test_requests.py", tasks.get(2).get("test_command").asText(),
                "the row's eval_script, from after its start marker to its end marker, in the conda environment it activates");
        assertEquals("row:eval_script", tasks.get(2).get("spec").asText());
    }

    /** SWE-Gym's repositories are not in SWE-bench's table: their rows take SWE-Gym's (its fork's spec, test command and parser). */
    @Test
    void sweGymRowsTakeSweGymsSpec() throws Exception {
        String testPatch = "diff --git a/tests/test_s3/test_s3.py b/tests/test_s3/test_s3.py\n--- a/tests/test_s3/test_s3.py\n+++ b/tests/test_s3/test_s3.py\n";
        var moto = (ObjectNode) M.readTree(sweBenchRow("getmoto__moto-6000", "getmoto/moto", "[\"tests/test_s3/test_s3.py::test_put\"]"));
        moto.put("version", "4.1").put("test_patch", testPatch);
        var monai = moto.deepCopy().put("instance_id", "Project-MONAI__MONAI-7000").put("repo", "Project-MONAI/MONAI").put("version", "1.2");
        var pydantic = moto.deepCopy().put("instance_id", "pydantic__pydantic-8000").put("repo", "pydantic/pydantic").put("version", "2.0");
        var unknown = moto.deepCopy().put("instance_id", "getmoto__moto-1").put("version", "0.1");
        Path in = dir.resolve("swegym.jsonl");
        Files.write(in, List.of(M.writeValueAsString(moto), M.writeValueAsString(monai), M.writeValueAsString(pydantic), M.writeValueAsString(unknown)));
        Path out = dir.resolve("swegym-tasks.jsonl");
        var r = run("tasks", "import", "--from", "swe-gym", in.toString(), "--out", out.toString());
        assertEquals(TasksCommand.SOME_REJECTED, r.exit(), r.out() + r.err());
        assertTrue(r.out().contains(in + ":4: test_command: the row has none, and the repository spec table has no entry for repo 'getmoto/moto' at version '0.1'"
                + " (SWE-Gym's table knows 14 versions of it, 0.4, 1.0, 1.2, 1.3, 2.0, 2.1 … 5.0)"), r.out());
        var tasks = Files.readAllLines(out).stream().map(ImportCommandTest::readTree).toList();
        assertEquals(3, tasks.size(), r.out());
        // by hand from the fork's SPECS_MOTO: python 3.12, install "make init", test_cmd "pytest -n0 -rA", then the test patch's files
        assertEquals("set -uxo pipefail\n" + "[ ! -f /opt/miniconda3/bin/activate ] || { source /opt/miniconda3/bin/activate && conda activate testbed; }" + "\nmake init\npytest -n0 -rA tests/test_s3/test_s3.py",
                tasks.get(0).get("test_command").asText());
        assertEquals("swe-gym:getmoto/moto@4.1", tasks.get(0).get("spec").asText());
        assertEquals("pytest-rA", tasks.get(0).get("test_report").get("parser").asText());
        assertEquals("3.12", tasks.get(0).get("toolchain").get("python").get("version").asText());
        assertEquals("swe-gym:Project-MONAI/MONAI@1.2", tasks.get(1).get("spec").asText(), "found as the fork finds it, in lower case");
        assertEquals("3.8", tasks.get(1).get("toolchain").get("python").get("version").asText());
        assertTrue(tasks.get(1).get("toolchain").get("python").get("install").asText().contains("pip install -r requirements-dev.txt"),
                "its spec names no packages: its install reads the requirements file itself");
        assertEquals("pytest-pydantic", tasks.get(2).get("test_report").get("parser").asText());
    }

    private static JsonNode readTree(String line) {
        try {
            return M.readTree(line);
        } catch (Exception e) {
            throw new AssertionError(line, e);
        }
    }

    @Test
    void aSpecTableOfOnesOwnNamesTheToolchain() throws Exception {
        Path specs = dir.resolve("specs.json");
        Files.writeString(specs, "{\"builds\": {\"maven\": {\"test_command\": \"mvn test -Dtest={test_classes}\", \"test_report\":"
                + " {\"format\": \"junit-xml\", \"path\": \"**/TEST-*.xml\"}}},"
                + " \"repos\": {\"acme/old\": {\"default\": {\"build\": \"maven\"}, \"versions\": {\"1.0\": {\"toolchain\": {\"java\": \"8\"}}}}}}");
        Path in = dir.resolve("old.jsonl");
        var row = (ObjectNode) M.readTree(sweBenchRow("acme__old-1", "acme/old", "[\"a.BTest#c\"]"));
        Files.write(in, List.of(M.writeValueAsString(row.put("version", "1.0")), M.writeValueAsString(row.put("instance_id", "acme__old-2")
                .put("version", "2.0"))));
        Path out = dir.resolve("old-tasks.jsonl");
        var r = run("tasks", "import", "--from", "swe-bench", in.toString(), "--out", out.toString(), "--specs", specs.toString());
        assertEquals(0, r.exit(), r.out() + r.err());
        var lines = Files.readAllLines(out);
        assertEquals("8", M.readTree(lines.get(0)).get("toolchain").get("java").asText(), "version 1.0 needs java 8");
        assertEquals("repos.acme/old.versions.1.0", M.readTree(lines.get(0)).get("spec").asText());
        assertTrue(M.readTree(lines.get(1)).get("toolchain") == null, "the repository default names none");
        assertEquals("mvn test -Dtest=a.BTest", M.readTree(lines.get(1)).get("test_command").asText());
    }

    @Test
    void polyBenchCsvAndParquetAreRead() throws Exception {
        Path csv = dir.resolve("polybench.csv");
        String patch = PATCH.replace("\"", "\"\"");
        Files.writeString(csv, "instance_id,repo,base_commit,problem_statement,patch,test_patch,F2P,P2P,language\n"
                + "acme__widgets-7,acme/widgets,0123456789abcdef0123456789abcdef01234567,\"Widgets\nbreak, on commas\",\"" + patch + "\",,"
                + "\"['WidgetTest.rendersEmpty', \"\"WidgetTest.keeps'quote\"\"]\",\"['OtherTest.stillWorks']\",Java\n");
        Path out = dir.resolve("poly.jsonl");
        var r = run("tasks", "import", "--from", "swe-polybench", csv.toString(), "--out", out.toString());
        assertEquals(0, r.exit(), r.out() + r.err());
        JsonNode task = M.readTree(Files.readAllLines(out).getFirst());
        assertEquals(List.of("WidgetTest.rendersEmpty", "WidgetTest.keeps'quote"), M.convertValue(task.get("FAIL_TO_PASS"), List.class));
        assertEquals("OtherTest.stillWorks", task.get("PASS_TO_PASS").get(0).asText());
        assertTrue(task.get("test_command").asText().endsWith("-Dtest=WidgetTest,OtherTest"), task.toString());
        assertEquals("Widgets\nbreak, on commas", task.get("problem_statement").asText(), "a quoted multi-line CSV field");
        assertEquals("languages.Java", task.get("spec").asText());

        // the same rows as HuggingFace serves them, in Parquet (written here by DuckDB from the JSONL)
        Path parquet = dir.resolve("poly.parquet");
        try (var db = DriverManager.getConnection("jdbc:duckdb:"); var st = db.createStatement()) {
            st.execute("COPY (SELECT * FROM read_csv('" + csv + "', header = true, all_varchar = true)) TO '" + parquet + "' (FORMAT parquet)");
        }
        Path out2 = dir.resolve("poly2.jsonl");
        var p = run("tasks", "import", "--from", "swe-polybench", parquet.toString(), "--out", out2.toString());
        assertEquals(0, p.exit(), p.out() + p.err());
        assertEquals(Files.readAllLines(out), Files.readAllLines(out2), "Parquet and CSV give the same tasks");
    }

    @Test
    void multiSweBenchRowsMapToTasksAndTheirImages() throws Exception {
        var row = M.createObjectNode().put("org", "acme").put("repo", "json-core").put("number", 42).put("state", "closed")
                .put("title", "Trailing commas").put("body", "");
        row.putObject("base").put("label", "acme:2.x").put("ref", "2.x").put("sha", "0123456789abcdef0123456789abcdef01234567");
        row.putArray("resolved_issues").addObject().put("number", 41).put("title", "Parser accepts [1,]").put("body", "It should not.");
        row.put("fix_patch", PATCH).put("test_patch", "");
        row.putObject("f2p_tests").putObject("com.acme.json.ParserTest").put("run", "PASS").put("test", "FAIL").put("fix", "PASS");
        row.putObject("n2p_tests").putObject("com.acme.json.CommaTest").put("run", "NONE").put("test", "NONE").put("fix", "PASS");
        row.putObject("p2p_tests").putObject("com.acme.json.WriterTest").put("run", "PASS").put("test", "PASS").put("fix", "PASS");
        row.putObject("s2p_tests");
        var noBase = row.deepCopy();
        noBase.remove("base");
        Path in = dir.resolve("msb.jsonl");
        Files.write(in, List.of(M.writeValueAsString(row), M.writeValueAsString(noBase)));
        Path specs = dir.resolve("specs.json");
        Files.writeString(specs, "{\"builds\": {\"maven\": {\"test_command\": \"mvn test -Dtest={test_classes}\", \"test_report\":"
                + " {\"format\": \"junit-xml\", \"path\": \"**/TEST-*.xml\"}}}, \"repos\": {\"acme/json-core\": {\"default\": {\"build\": \"maven\"}}}}");
        Path out = dir.resolve("msb-tasks.jsonl");
        var r = run("tasks", "import", "--from", "multi-swe-bench", in.toString(), "--out", out.toString(), "--specs", specs.toString());
        assertEquals(TasksCommand.SOME_REJECTED, r.exit(), r.out() + r.err());
        assertTrue(r.out().contains(in + ":2: base.sha: required"), r.out());
        JsonNode task = M.readTree(Files.readAllLines(out).getFirst());
        assertEquals("acme__json-core-42", task.get("instance_id").asText());
        assertEquals("acme/json-core", task.get("repo").asText());
        assertEquals("0123456789abcdef0123456789abcdef01234567", task.get("base_commit").asText());
        assertEquals("Parser accepts [1,]\n\nIt should not.", task.get("problem_statement").asText(), "the resolved issue, not the PR title");
        assertEquals(List.of("com.acme.json.ParserTest", "com.acme.json.CommaTest"), M.convertValue(task.get("FAIL_TO_PASS"), List.class),
                "failing and absent tests that the fix makes pass");
        assertEquals("mvn test -Dtest=com.acme.json.ParserTest,com.acme.json.CommaTest,com.acme.json.WriterTest", task.get("test_command").asText(),
                "class ids stay classes");
        assertEquals(42, task.get("number").asInt(), "the row's own fields are kept");

        Path images = dir.resolve("msb-images.jsonl");
        run("tasks", "import", "--from", "multi-swe-bench", in.toString(), "--out", images.toString(), "--specs", specs.toString(), "--workspace", "image");
        JsonNode ws = M.readTree(Files.readAllLines(images).getFirst()).get("workspace");
        assertEquals("mswebench/acme_m_json-core:pr-42", ws.get("image").asText());
        assertEquals("/home/json-core", ws.get("workdir").asText());
    }

    @Test
    void eachFormatNamesItsPublishedImage() throws Exception {
        var task = M.createObjectNode().put("instance_id", "Django__django-11099");
        assertEquals("swebench/sweb.eval.x86_64.django_1776_django-11099:latest",
                DatasetFormat.SWE_BENCH.image(task).get("image").asText());
        assertEquals("ghcr.io/timesler/swe-polybench.eval.x86_64.django__django-11099:v1.1",
                DatasetFormat.SWE_POLYBENCH.image(task).get("image").asText());
        assertTrue(DatasetFormat.SWE_POLYBENCH.image(task).get("workdir") == null, "the image's own working directory");
    }

    @Test
    void sweRebenchRowsRunTheirOwnTestCommand() throws Exception {
        var row = (ObjectNode) M.readTree(sweBenchRow("acme__py-3", "acme/py", "[\"tests/test_x.py::test_a\"]"));
        row.put("install_config", "{\"test_cmd\": \"pytest --no-header -rA tests/test_x.py\", \"log_parser\": \"parse_log_pytest_v2\", \"install\": \"pip install -e .\"}");
        row.put("image_name", "swerebench/sweb.eval.x86_64.acme_1776_py-3");
        var elixir = row.deepCopy().put("instance_id", "acme__py-4");
        elixir.putObject("install_config").put("test_cmd", "mix test").put("log_parser", "parse_log_elixir");
        Path in = dir.resolve("rebench.jsonl");
        Files.write(in, List.of(M.writeValueAsString(row), M.writeValueAsString(elixir)));
        Path out = dir.resolve("rebench-tasks.jsonl");
        var r = run("tasks", "import", "--from", "swe-rebench", in.toString(), "--out", out.toString(), "--workspace", "image");
        assertEquals(TasksCommand.SOME_REJECTED, r.exit(), r.out() + r.err());
        assertTrue(r.out().contains(in + ":2: install_config.log_parser: 'parse_log_elixir' has no alice-rl counterpart"), r.out());
        JsonNode task = M.readTree(Files.readAllLines(out).getFirst());
        assertEquals("pytest --no-header -rA tests/test_x.py", task.get("test_command").asText(), "the row's own command, not a spec's");
        assertEquals("pytest", task.get("test_report").get("format").asText());
        assertTrue(task.get("spec") == null, "no spec table entry was needed");
        assertEquals("swerebench/sweb.eval.x86_64.acme_1776_py-3", task.get("workspace").get("image").asText());
    }
}
