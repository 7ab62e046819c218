package ai.openalice.rl.events.task;

import com.fasterxml.jackson.annotation.JsonSubTypes;
import com.fasterxml.jackson.annotation.JsonTypeInfo;
import java.util.List;

/**
 * How the verifier reads per-test results. Test ids: {@code pkg.Class#method} for JUnit,
 * {@code test_method (module.Class)} for unittest, {@code path::Class::test} for pytest.
 */
@JsonTypeInfo(use = JsonTypeInfo.Id.NAME, property = "format")
@JsonSubTypes({
    @JsonSubTypes.Type(value = TestReportSpec.JunitXml.class, name = "junit-xml"),
    @JsonSubTypes.Type(value = TestReportSpec.Unittest.class, name = "unittest"),
    @JsonSubTypes.Type(value = TestReportSpec.Pytest.class, name = "pytest"),
    @JsonSubTypes.Type(value = TestReportSpec.Log.class, name = "log")
})
public sealed interface TestReportSpec {

    /** JUnit XML files matching {@code path} (a glob relative to the workspace root). */
    record JunitXml(String path) implements TestReportSpec {}

    /** The output of {@code python -m unittest -v}. */
    record Unittest() implements TestReportSpec {}

    /** The output of {@code pytest -rA}. */
    record Pytest() implements TestReportSpec {}

    /**
     * The test command's output read by a named log parser, as SWE-bench defines them: {@code maven}
     * (one Maven run per test under {@code set -x}; ids {@code pkg.Class#method}), {@code cargo}
     * (Rust's libtest; ids {@code module::test}), {@code jest} ({@code --verbose}) and {@code mocha} (spec
     * reporter; ids the tests' titles, as SWE-bench names them); and SWE-bench's parsers of its
     * Python repositories and of Go — {@code pytest-rA} (parse_log_pytest: flask, pytest, xarray, …),
     * {@code pytest-options} (requests, pylint, pydicom), {@code pytest-v2} (astropy, scikit-learn,
     * sphinx; swebench 4.1.0's, whose ids SWE-bench Verified lists; {@code pytest-v2-joined} is 5.x's), {@code pytest-pydantic} (SWE-Gym's pydantic), {@code django}, {@code seaborn}, {@code sympy}, {@code matplotlib} and {@code go-test}
     * ({@code go test -v}) — read as the official package reads them; and SWE-PolyBench's ten
     * ({@code polybench-java}, {@code polybench-python}, {@code polybench-js}, {@code polybench-js-jest},
     * {@code polybench-js-mocha}, {@code polybench-ts-jest}, {@code polybench-ts-jest-title},
     * {@code polybench-ts-mocha}, {@code polybench-ts-mocha-file}, {@code polybench-bazel}), read as its
     * harness reads them (its tasks say {@code "grading": "swe-polybench"} as well).
     */
    record Log(String parser) implements TestReportSpec {
        public static final List<String> PARSERS = List.of("maven", "cargo", "jest", "mocha", "pytest-rA", "pytest-options", "pytest-v2", "pytest-v2-joined",
                "pytest-pydantic", "django", "seaborn", "sympy", "matplotlib", "go-test", "polybench-java", "polybench-python", "polybench-js", "polybench-js-jest",
                "polybench-js-mocha", "polybench-ts-jest", "polybench-ts-jest-title", "polybench-ts-mocha", "polybench-ts-mocha-file", "polybench-bazel");
    }
}
