package ai.openalice.rl.cli.imports;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ai.openalice.rl.events.task.TestReportSpec;
import ai.openalice.rl.harness.reports.SweBenchLogParsers;
import ai.openalice.rl.testkit.PythonReference;
import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * alice-rl's copy of SWE-bench's spec table ({@code swebench-specs.json}) against the official
 * package's own (swebench 4.1.0's constants and eval-script helpers, run by
 * {@code dev/python/swebench_reference.py specs}): every repository and version, its facts
 * verbatim, its log parser, and the test command of an instance whose test patch touches a test
 * file, a Go test, a document, a fixture and a source file — the command alice-rl builds must end
 * with the commands SWE-bench's eval script runs. Every registry name of swebench 5.0.2 (the names
 * a 5.x dataset row's {@code log_parser} holds) is mapped to the parser of its function.
 */
class SweBenchSpecsTest {
    static final String CONDA = "[ ! -f /opt/miniconda3/bin/activate ] || { source /opt/miniconda3/bin/activate && conda activate testbed; }";
    static JsonNode official;
    static SweBenchSpecs ours;

    @BeforeAll
    static void load() throws Exception {
        official = PythonReference.swebenchReference("specs");
        ours = SweBenchSpecs.bundled();
    }

    /** The repositories SWE-bench's table has that alice-rl's leaves out, and why: not a repository of any dataset imported. */
    static final List<String> LEFT_OUT = List.of("swe-bench/humaneval");

    @Test
    void everyRepositoryAndVersionIsTheOfficialOne() {
        var repos = new TreeSet<String>();
        official.get("repos").fieldNames().forEachRemaining(repos::add);
        repos.removeAll(LEFT_OUT);
        assertTrue(repos.size() >= 60, "the official table was read: " + repos);
        var mine = new TreeSet<String>();
        ours.table().path("repos").fieldNames().forEachRemaining(mine::add);
        assertEquals(repos, mine, "the same repositories");
        int versions = 0;
        for (String repo : repos) {
            JsonNode o = official.get("repos").get(repo);
            assertEquals(o.get("versions"), ours.repo(repo).get("versions"), repo + ": every version's facts, verbatim");
            assertEquals(o.get("parser").isNull() ? null : o.get("parser").asText(), ours.repo(repo).get("swebench_parser").asText(null), repo + "'s parser");
            assertEquals(o.get("python").asBoolean() ? "python" : "common", ours.repo(repo).get("harness").asText(), repo + "'s harness");
            assertEquals(o.get("requirements_paths").isNull() ? null : o.get("requirements_paths"), ours.repo(repo).get("requirements_paths"),
                    repo + "'s requirements files");
            assertEquals(o.get("env_yml_paths").isNull() ? null : o.get("env_yml_paths"), ours.repo(repo).get("env_yml_paths"),
                    repo + "'s conda environment files");
            versions += o.get("versions").size();
        }
        assertTrue(versions >= 600, "every version of every repository: " + versions);
    }

    /**
     * The lines of SWE-bench's eval script that the harness does its own way: conda (the command's
     * one guarded activation stands for them), {@code cd},
     * informational git (SWE-Gym's fork's diff is a plain {@code git diff}), resetting and applying
     * the test patch, the output markers.
     */
    static boolean harnessOwned(String line) {
        return line.equals("source /opt/miniconda3/bin/activate") || line.equals("conda activate testbed") || line.equals("cd /testbed")
                || line.equals("git config --global --add safe.directory /testbed") || line.equals("git status") || line.equals("git show")
                || line.equals("git -c core.fileMode=false diff BASE") || line.equals("git diff BASE") || line.startsWith("git checkout BASE ") || line.startsWith("git apply ")
                || line.startsWith(": '>>>>> ") || line.equals("echo \"No test files to reset\"");
    }

    /**
     * The command alice-rl must build for an eval script: under {@code set -uxo pipefail}, for a
     * Python harness its conda activation (kept for SWE-bench's images, skipped elsewhere), then
     * every line the harness does not do its own way.
     */
    static List<String> expectedCommand(JsonNode script, boolean python) {
        var expected = new ArrayList<>(List.of("set -uxo pipefail"));
        if (python) {
            assertTrue(script.get(0).asText().equals("source /opt/miniconda3/bin/activate") && script.get(1).asText().equals("conda activate testbed"));
            expected.add(SweBenchSpecs.condaActivation("testbed"));
        }
        script.forEach(line -> {
            if (!harnessOwned(line.asText())) {
                expected.add(line.asText());
            }
        });
        return expected;
    }

    @Test
    void theCommandIsTheEvalScriptLessWhatTheHarnessDoes() {
        String probe = official.get("probe_test_patch").asText();
        int equal = 0;
        int refused = 0;
        var mismatches = new ArrayList<String>();
        for (var repo : iterable(official.get("repos").fieldNames())) {
            if (LEFT_OUT.contains(repo)) {
                continue;
            }
            JsonNode o = official.get("repos").get(repo);
            for (var version : iterable(o.get("versions").fieldNames())) {
                JsonNode script = o.get("eval_scripts").get(version);
                String function = o.get("parser").asText(null);
                if (script.isNull() || SweBenchLogParsers.forFunction(function) == null) {
                    var e = assertThrows(IllegalArgumentException.class, () -> ours.resolve(repo, version, probe), repo + " " + version);
                    assertTrue(e.getMessage().contains(repo + " " + version) && e.getMessage().contains("--specs"), e.getMessage());
                    refused++;
                    continue;
                }
                var expected = expectedCommand(script, o.get("python").asBoolean());
                var resolved = ours.resolve(repo, version, probe).orElseThrow();
                if (!List.of(resolved.testCommand().split("\n", -1)).equals(expected)) {
                    mismatches.add(repo + " " + version + ": ours " + resolved.testCommand() + "\nofficial " + expected);
                } else {
                    equal++;
                }
                assertEquals(SweBenchLogParsers.forFunction(function), resolved.testReport().get("parser").asText(), repo + " " + version);
            }
        }
        assertEquals(List.of(), mismatches);
        assertTrue(equal >= 350 && equal + refused >= 600, equal + " commands equal, " + refused + " refused");
        System.out.println("SweBenchSpecsTest: " + equal + " versions' commands equal to swebench's eval scripts, " + refused + " refused with a reason");
    }

    @Test
    void pythonCommandsNameTheTestFilesAsSweBenchDoes() {
        String patch = official.get("probe_test_patch").asText();
        assertEquals(List.of("tests/test_probe.py", "tests/unit/probe_test.go", "src/probe.rs"), ours.directives(patch, "files"),
                "the document and the fixture are not tests (their extensions are in NON_TEST_EXTS)");
        assertEquals(List.of("test_probe", "unit.probe_test.go", "src.probe.rs"), ours.directives(patch, "modules"),
                "django's runner takes modules: tests/ dropped, .py dropped, / as .");
        String requests = ours.resolve("psf/requests", "2.0", patch).orElseThrow().testCommand();
        assertEquals("set -uxo pipefail\n" + CONDA + "\npython -m pip install .\npytest -rA tests/test_probe.py tests/unit/probe_test.go src/probe.rs", requests,
                "requests 2.0's install (again, after the patch) and test_cmd with the test files, by hand from swebench's constants");
    }

    @Test
    void everyRegistryNameOfSweBench5HasTheParserOfItsFunction() {
        JsonNode registry = PythonReference.swebenchReference("registry").get("registry");
        Map<String, String> missing = new TreeMap<>();
        int mapped = 0;
        for (var name : iterable(registry.fieldNames())) {
            String function = registry.get(name).asText();
            String byName = SweBenchLogParsers.forFunction(name);
            String byFunction = SweBenchLogParsers.forFunction(function);
            assertEquals(byFunction, byName, name + " is " + function + " in swebench's registry");
            if (byName == null) {
                missing.put(name, function);
            } else {
                assertTrue(TestReportSpec.Log.PARSERS.contains(byName), byName + " is a parser a task's test_report may name");
                mapped++;
            }
        }
        assertTrue(mapped >= 20, mapped + " mapped; without a parser of alice-rl's: " + missing);
    }

    private static <T> Iterable<T> iterable(Iterator<T> it) {
        return () -> it;
    }
}
