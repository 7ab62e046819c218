package ai.openalice.rl.cli.imports;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ai.openalice.rl.events.TestStatus;
import ai.openalice.rl.harness.reports.SweBenchLogParsers;
import com.fasterxml.jackson.databind.JsonNode;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * alice-rl's copy of SWE-Gym's spec table ({@code swegym-specs.json}) against what SWE-Gym's fork of
 * SWE-bench's harness (github.com/SWE-Gym/SWE-Bench-Fork at 242429c) itself gives, captured by
 * running its own code with {@code dev/python/swegym_reference.py} into
 * {@code swegym-reference.json} (the fork is on no registry these machines reach, so CI reads the
 * capture): every repository it adds and every version, its facts verbatim, its log parser, the
 * test command of an instance whose test patch touches a test file, a document, a fixture, a
 * project file and a mypy data file, and what its two parsers read from logs of real pytest runs.
 */
class SweGymSpecsTest {
    static JsonNode official;
    static SweBenchSpecs ours;

    @BeforeAll
    static void load() throws Exception {
        try (InputStream in = SweGymSpecsTest.class.getResourceAsStream("/swegym-reference.json")) {
            official = DatasetFile.JSON.readTree(in);
        }
        ours = SweBenchSpecs.sweGym();
    }

    @Test
    void everyRepositoryAndVersionIsTheForksOwn() {
        var repos = new TreeSet<String>();
        official.get("repos").fieldNames().forEachRemaining(repos::add);
        var mine = new TreeSet<String>();
        ours.table().path("repos").fieldNames().forEachRemaining(mine::add);
        assertEquals(repos, mine, "the same repositories");
        assertTrue(repos.containsAll(List.of("python/mypy", "getmoto/moto", "pandas-dev/pandas", "project-monai/monai", "pydantic/pydantic",
                "iterative/dvc", "dask/dask", "conan-io/conan", "bokeh/bokeh", "modin-project/modin", "facebookresearch/hydra")),
                "SWE-Gym's eleven repositories: " + repos);
        int versions = 0;
        for (String repo : repos) {
            JsonNode o = official.get("repos").get(repo);
            assertEquals(o.get("versions"), ours.repo(repo).get("versions"), repo + ": every version's facts, verbatim");
            assertEquals(o.get("parser").isNull() ? null : o.get("parser").asText(), ours.repo(repo).get("swebench_parser").asText(null), repo + "'s parser");
            assertEquals(o.get("requirements_paths").isNull() ? null : o.get("requirements_paths"), ours.repo(repo).get("requirements_paths"));
            versions += o.get("versions").size();
        }
        assertTrue(versions >= 500, "every version of every repository: " + versions);
        assertEquals(ours.repo("project-monai/monai"), ours.repo("Project-MONAI/MONAI"), "looked up as the fork looks up: in lower case");
    }

    @Test
    void theCommandIsTheEvalScriptLessWhatTheHarnessDoes() {
        String probe = official.get("probe_test_patch").asText();
        int equal = 0;
        int refused = 0;
        var mismatches = new ArrayList<String>();
        for (var repo : (Iterable<String>) () -> official.get("repos").fieldNames()) {
            JsonNode o = official.get("repos").get(repo);
            for (var version : (Iterable<String>) () -> o.get("versions").fieldNames()) {
                JsonNode script = o.get("eval_scripts").get(version);
                if (script.isNull() || SweBenchLogParsers.forFunction(o.get("parser").asText(null)) == null) {
                    var e = assertThrows(IllegalArgumentException.class, () -> ours.resolve(repo, version, probe), repo + " " + version);
                    assertTrue(e.getMessage().contains("SWE-Gym's spec of " + repo + " " + version) && e.getMessage().contains("--specs"), e.getMessage());
                    refused++;
                    continue;
                }
                var expected = SweBenchSpecsTest.expectedCommand(script, true); // the fork runs every repository as Python
                var resolved = ours.resolve(repo, version, probe).orElseThrow();
                if (resolved.testCommand().equals(String.join("\n", expected))) { // an install of several lines stays one command
                    equal++;
                } else {
                    mismatches.add(repo + " " + version + ": ours " + resolved.testCommand() + "\nfork's " + expected);
                }
                assertTrue(resolved.from().equals("swe-gym:" + repo + "@" + version), resolved.from());
            }
        }
        assertEquals(List.of(), mismatches);
        assertTrue(equal >= 480, equal + " commands equal, " + refused + " refused");
        System.out.println("SweGymSpecsTest: " + equal + " versions' commands equal to SWE-Gym's eval scripts, " + refused + " refused with a reason");
    }

    @Test
    void mypyRunsTheCasesOfItsDataFiles() {
        String probe = official.get("probe_test_patch").asText();
        String command = ours.resolve("python/mypy", "1.7", probe).orElseThrow().testCommand();
        assertTrue(command.endsWith("\npytest -rA -k \"testProbeOne or testProbeTwo-skip\""),
                "by hand from the fork's make_test_command: test_cmd, then the [case] names or-ed in double quotes: " + command);
    }

    @Test
    void itsParsersReadAsTheForksRead() throws Exception {
        Path logs = Path.of("../libs/harness/src/test/resources/logs/swebench");
        int compared = 0;
        for (var function : (Iterable<String>) () -> official.get("parsed").fieldNames()) {
            String parser = SweBenchLogParsers.forFunction(function);
            for (var log : (Iterable<String>) () -> official.get("parsed").get(function).fieldNames()) {
                var expected = new TreeMap<String, TestStatus>();
                official.get("parsed").get(function).get(log).properties().forEach(e -> expected.put(e.getKey(), SweBenchLogParsers.status(e.getValue().asText())));
                if (parser.equals("pytest-rA")) {
                    // the fork's parse_log_pytest predates SWE-bench's skipping of pytest's "SKIPPED [1] path:line" count;
                    // alice-rl reads as swebench 5.0.2 does (SweBenchLogParsersTest); no test is named [1]
                    assertEquals(TestStatus.SKIPPED, expected.remove("[1]"), log);
                }
                Map<String, TestStatus> mine = new TreeMap<>(SweBenchLogParsers.named(parser).parse(Files.readString(logs.resolve(log)), List.of()));
                assertEquals(expected, mine, function + " on " + log);
                assertTrue(expected.size() >= 8, log + " has tests for " + function + " to read");
                compared++;
            }
        }
        assertEquals(8, compared, "two parsers on four logs");
    }
}
