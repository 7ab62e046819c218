package ai.openalice.rl.harness;

import ai.openalice.rl.events.TestStatus;
import ai.openalice.rl.events.VerificationStatus;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The verifier's verdict on one patch. {@code resolved} iff the FAIL_TO_PASS and PASS_TO_PASS
 * tests' outcomes resolve the task by its {@code grading} (SWE-bench's: every one passed);
 * {@code reason} says why the status is {@code patch_failed}, {@code timed_out} or
 * {@code infra_error}, or why no test reported; {@code cause} classifies a verdict where the tests
 * did not speak for the patch (null when they did); {@code exitCode} is the first test run's (null
 * when none ran); {@code log} its output (stdout, then stderr, as the sandbox kept them:
 * the head and tail of each within its output limit); {@code toolchain} the JDK the task asked for and
 * got (null when it named none: the host's).
 */
public record Verdict(
        String instanceId, VerificationStatus status, Map<String, TestStatus> failToPass, Map<String, TestStatus> passToPass,
        List<String> flaky, FlakyRule flakyRule, int runs, long durationMs, String reason, String log, Integer exitCode, Cause cause,
        String toolchain) {

    /**
     * Why the tests did not judge the patch: the environment (the test command failed before any
     * test reported: a compile failure, a missing toolchain or dependency), the patch (it did not
     * apply), a timeout, or the infrastructure.
     */
    public enum Cause {
        ENVIRONMENT("environment"), PATCH("patch_failed"), TIMEOUT("timeout"), INFRA("infra");

        private final String wire;

        Cause(String wire) {
            this.wire = wire;
        }

        public String wire() {
            return wire;
        }
    }

    public Verdict {
        // In the task's order: verdicts are read by people and diffed by scripts.
        failToPass = Collections.unmodifiableMap(new LinkedHashMap<>(failToPass));
        passToPass = Collections.unmodifiableMap(new LinkedHashMap<>(passToPass));
        flaky = List.copyOf(flaky);
    }

    /** The same test results judged otherwise: another status, reason and cause. */
    public Verdict rejudged(VerificationStatus newStatus, String newReason, Cause newCause) {
        return new Verdict(instanceId, newStatus, failToPass, passToPass, flaky, flakyRule, runs, durationMs, newReason, log, exitCode, newCause,
                toolchain);
    }

    /** The same verdict, recording the JDK that ran the tests. */
    public Verdict withToolchain(String jdk) {
        return new Verdict(instanceId, status, failToPass, passToPass, flaky, flakyRule, runs, durationMs, reason, log, exitCode, cause, jdk);
    }

    public boolean resolved() {
        return status == VerificationStatus.RESOLVED;
    }
}
