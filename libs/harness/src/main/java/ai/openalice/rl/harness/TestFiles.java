package ai.openalice.rl.harness;

import java.util.regex.Pattern;

/**
 * Which paths are tests or test configuration. The harness resets every such path the candidate
 * touched, so that an agent's edits to tests — or a conftest.py, JUnit configuration or Python
 * start-up hook that rewrites results — never count.
 */
public final class TestFiles {
    private static final Pattern TEST = Pattern.compile(
            "(^|/)(tests?|testing|src/test)/"              // test folders
                    + "|(^|/)test_[^/]*\\.py$|_tests?\\.py$"    // python test modules
                    + "|(^|/)[^/]*Tests?\\.(java|kt|scala)$"    // JUnit classes
                    + "|(^|/)[^/]*IT\\.java$");
    private static final Pattern CONFIG = Pattern.compile(
            "(^|/)(conftest\\.py|pytest\\.ini|tox\\.ini|noxfile\\.py|sitecustomize\\.py|usercustomize\\.py"
                    + "|junit-platform\\.properties|[^/]*\\.pth)$"
                    + "|(^|/)META-INF/services/org\\.junit\\.");

    private TestFiles() {}

    /** A test file: a test module or class, or anything under a test folder. */
    public static boolean isTest(String path) {
        return TEST.matcher(path).find();
    }

    /** A file that configures how tests run or report (conftest.py, pytest.ini, a Python start-up hook, JUnit's configuration). */
    public static boolean isTestConfig(String path) {
        return CONFIG.matcher(path).find();
    }

    /** A test file or a file that configures how tests run or report. */
    public static boolean isProtected(String path) {
        return TEST.matcher(path).find() || CONFIG.matcher(path).find();
    }
}
