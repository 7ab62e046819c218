package ai.openalice.rl.harness;

import ai.openalice.rl.events.TestStatus;
import ai.openalice.rl.events.VerificationStatus;
import java.util.List;
import java.util.Map;

/**
 * The verifier's verdict on one patch. {@code resolved} iff every FAIL_TO_PASS and PASS_TO_PASS
 * test passed; {@code reason} says why the status is {@code patch_failed}, {@code timed_out} or
 * {@code infra_error}.
 */
public record Verdict(
        String instanceId, VerificationStatus status, Map<String, TestStatus> failToPass, Map<String, TestStatus> passToPass,
        List<String> flaky, FlakyRule flakyRule, int runs, long durationMs, String reason, String log) {

    public Verdict {
        // In the task's order: verdicts are read by people and diffed by scripts.
        failToPass = java.util.Collections.unmodifiableMap(new java.util.LinkedHashMap<>(failToPass));
        passToPass = java.util.Collections.unmodifiableMap(new java.util.LinkedHashMap<>(passToPass));
        flaky = List.copyOf(flaky);
    }

    public boolean resolved() {
        return status == VerificationStatus.RESOLVED;
    }
}
