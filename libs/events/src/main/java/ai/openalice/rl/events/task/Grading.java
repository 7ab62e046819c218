package ai.openalice.rl.events.task;

import ai.openalice.rl.events.TestStatus;
import ai.openalice.rl.events.WireEnum;
import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonValue;
import java.util.Collection;

/**
 * When the listed tests' outcomes resolve a task, by the rule of the benchmark it comes from.
 * {@code swe-bench} (the default; SWE-bench's, Multi-SWE-bench's, SWE-rebench's): every FAIL_TO_PASS
 * and every PASS_TO_PASS test passed, so one that did not run fails the task. {@code swe-polybench}
 * (SWE-PolyBench's {@code instance_level_scoring}): every FAIL_TO_PASS test passed and no
 * PASS_TO_PASS test failed — one that was skipped or did not run counts as kept.
 */
public enum Grading implements WireEnum {
    SWE_BENCH("swe-bench"),
    SWE_POLYBENCH("swe-polybench");

    private final String wire;

    Grading(String wire) { this.wire = wire; }

    @JsonValue
    @Override
    public String wire() { return wire; }

    @JsonCreator
    public static Grading of(String value) { return WireEnum.parse(Grading.class, value); }

    /** Whether these outcomes of the task's FAIL_TO_PASS and PASS_TO_PASS tests resolve it. */
    public boolean resolved(Collection<TestStatus> failToPass, Collection<TestStatus> passToPass) {
        boolean fixed = failToPass.stream().allMatch(s -> s == TestStatus.PASSED);
        return fixed && switch (this) {
            case SWE_BENCH -> passToPass.stream().allMatch(s -> s == TestStatus.PASSED);
            case SWE_POLYBENCH -> passToPass.stream().noneMatch(s -> s == TestStatus.FAILED || s == TestStatus.ERROR);
        };
    }
}
