package ai.openalice.rl.harness;

import ai.openalice.rl.events.TestStatus;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Matches the test ids a task lists to those a report names when the two spell the same JUnit
 * test differently: SWE-bench's Java specs and our JUnit XML reader say {@code pkg.Class#method},
 * SWE-PolyBench {@code Class.method}, others {@code Class::method}. An exact match always wins;
 * otherwise ids compare with {@code #} and {@code ::} read as {@code .}, whole or as the unique
 * report id that ends with the listed one at a {@code .} boundary (a listed id without its
 * package). An ambiguous suffix (two classes of that name in different packages) matches nothing.
 *
 * <p>A listed id that names a whole test class ({@code pkg.Class}, as Multi-SWE-bench's Java
 * datasets list their tests) stands for every reported test of that class, judged as
 * Multi-SWE-bench's Maven log parser judges a class from Surefire's summary line: failed when any
 * of its tests failed or erred, skipped when all were skipped, passed otherwise.
 */
final class TestIds {
    private final Map<String, TestStatus> exact;
    private final Map<String, List<String>> bySuffix = new HashMap<>();
    private final Map<String, String> canonical = new HashMap<>();

    TestIds(Map<String, TestStatus> reported) {
        this.exact = reported;
        for (String id : reported.keySet()) {
            String c = canonical(id);
            canonical.putIfAbsent(c, id);
            for (int i = c.indexOf('.'); i >= 0; i = c.indexOf('.', i + 1)) {
                bySuffix.computeIfAbsent(c.substring(i + 1), k -> new ArrayList<>()).add(id);
            }
        }
    }

    /** {@code #} and {@code ::} as {@code .}. */
    static String canonical(String id) {
        return id.replace("::", ".").replace('#', '.');
    }

    /** The reported outcome of the listed test, {@link TestStatus#MISSING} when no report id matches it. */
    TestStatus outcome(String listed) {
        TestStatus s = exact.get(listed);
        if (s != null) {
            return s;
        }
        String c = canonical(listed);
        String same = canonical.get(c);
        if (same != null) {
            return exact.get(same);
        }
        List<String> ending = bySuffix.get(c);
        return ending != null && ending.size() == 1 ? exact.get(ending.getFirst()) : wholeClass(c);
    }

    /** The outcome of every reported test of class {@code c} together; {@link TestStatus#MISSING} when none was reported. */
    private TestStatus wholeClass(String c) {
        String prefix = c + ".";
        boolean any = false;
        boolean allSkipped = true;
        for (var e : canonical.entrySet()) {
            if (!e.getKey().startsWith(prefix)) {
                continue;
            }
            TestStatus s = exact.get(e.getValue());
            if (s == TestStatus.FAILED || s == TestStatus.ERROR) {
                return TestStatus.FAILED;
            }
            any = true;
            allSkipped &= s == TestStatus.SKIPPED;
        }
        return !any ? TestStatus.MISSING : allSkipped ? TestStatus.SKIPPED : TestStatus.PASSED;
    }
}
