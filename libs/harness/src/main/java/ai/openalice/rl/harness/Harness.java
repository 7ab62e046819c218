package ai.openalice.rl.harness;

import ai.openalice.rl.events.TestStatus;
import ai.openalice.rl.events.VerificationStatus;
import ai.openalice.rl.events.task.Task;
import ai.openalice.rl.sandbox.ExecResult;
import ai.openalice.rl.sandbox.Sandbox;
import ai.openalice.rl.sandbox.SandboxException;
import ai.openalice.rl.sandbox.SandboxProvider;
import ai.openalice.rl.sandbox.SandboxSpec;
import ai.openalice.rl.sandbox.Shell;
import ai.openalice.rl.sandbox.WorkspaceSource;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The verifier harness, faithful to SWE-bench's: a fresh sandbox at the task's base (never the
 * agent's) with what its environment's set-up changed in the repository committed (SWE-bench's
 * {@code pre_install} edits, as its images hold them), the candidate patch applied as SWE-bench's
 * harness applies it ({@code git apply}, {@code git apply --3way}, {@code patch --fuzz=5}), every test
 * file it touched and every file of the hidden {@code test_patch} reset to the base, the hidden
 * tests applied, the test command run, per-test results read from the declared report. Resolved
 * iff every FAIL_TO_PASS and PASS_TO_PASS test passed; a listed test that did not run counts as
 * failed. Failures of the sandbox or the task itself are {@code infra_error}, never a verdict.
 */
public final class Harness {
    private static final Duration STEP = Duration.ofMinutes(2);
    private static final String WORK = ".alice-rl-verify";

    private final SandboxProvider sandboxes;
    private final VerifierOptions options;

    public Harness(SandboxProvider sandboxes, VerifierOptions options) {
        this.sandboxes = sandboxes;
        this.options = options;
    }

    public Verdict verify(Task task, String patch) {
        long start = System.nanoTime();
        Toolchains.Choice jdk = null;
        if (task.javaVersion().isPresent()) {
            int asked = task.javaVersion().getAsInt();
            var host = Toolchains.scan(options.jvmRoot());
            var found = host.java(asked);
            if (found.isEmpty()) {
                return environment(task, start, "the task needs java " + asked + "; this host has " + host.jdks().stream().map(j -> "java " + j.major())
                        .toList() + " under " + options.jvmRoot() + ", none that new", "");
            }
            jdk = found.get();
        }
        PythonEnvironments.Built python = null;
        var source = WorkspaceSource.of(task.workspace(), options.mirrors());
        if (task.pythonToolchain().isPresent() && !(source instanceof WorkspaceSource.Image)) { // an image holds its own environment
            if (options.python() == null) {
                return environment(task, start, "the task needs a Python environment (toolchain.python) and this verifier builds none", "");
            }
            try {
                python = options.python().ensure(task.pythonToolchain().get(), source, task.version());
            } catch (PythonEnvironments.Unavailable e) {
                return environment(task, start, e.getMessage(), e.logTail());
            }
        }
        SandboxNetwork network;
        try {
            network = SandboxNetwork.of(task.unroutable(), task.standIns(), options.python());
        } catch (PythonEnvironments.Unavailable e) {
            return environment(task, start, e.getMessage(), e.logTail());
        }
        Verdict v = verifyWith(task, patch, jdk, python, network, start);
        var used = new ArrayList<String>();
        if (jdk != null) {
            used.add(jdk.describe());
        }
        if (python != null) {
            used.add(python.describe());
        }
        return used.isEmpty() ? v : v.withToolchain(String.join("; ", used));
    }

    /** The task's environment cannot be had on this host: not the patch's doing, so an infrastructure error the trainer masks. */
    private Verdict environment(Task task, long start, String reason, String logTail) {
        return verdict(task, VerificationStatus.INFRA_ERROR, Map.of(), List.of(), 0, start, reason, logTail, null, Verdict.Cause.ENVIRONMENT);
    }

    private Verdict verifyWith(Task task, String patch, Toolchains.Choice jdk, PythonEnvironments.Built python, SandboxNetwork network, long start) {
        try (Sandbox s = sandboxes.create(network.applyTo(spec(task, jdk, python)))) {
            String editsFailed = environmentOf(jdk, python).commitWorkspaceEdits(s);
            if (editsFailed != null) {
                return environment(task, start, "the environment's pre_install steps failed in the workspace: " + editsFailed, "");
            }
            // the base the test and configuration files are reset to: with the set-up edits, as SWE-bench's image holds them
            // (its tox.ini with -rA, which a protected file reset to the bare base would lose)
            ExecResult head = s.exec("git rev-parse HEAD", STEP);
            if (!head.ok()) {
                return infra(task, start, "the task's workspace has no base commit: " + head.stderr().strip());
            }
            String base = head.stdout().strip();
            Set<String> candidatePaths = PatchPaths.of(patch);
            if (patch != null && !patch.isBlank()) {
                String failure = apply(s, patch, true);
                if (failure != null) {
                    return verdict(task, VerificationStatus.PATCH_FAILED, Map.of(), List.of(), 0, start, failure, "", null, Verdict.Cause.PATCH);
                }
            }
            var reset = new LinkedHashSet<String>();
            candidatePaths.stream().filter(TestFiles::isProtected).forEach(reset::add);
            reset.addAll(PatchPaths.of(task.testPatch()));
            resetToBase(s, base, reset);
            if (task.testPatch() != null && !task.testPatch().isBlank()) {
                String failure = apply(s, task.testPatch(), false);
                if (failure != null) {
                    return infra(task, start, "the task's test_patch does not apply to its base: " + failure);
                }
            }
            var runs = new ArrayList<Map<String, TestStatus>>();
            TestRun first = TestRun.execute(s, task, setup(), network);
            if (first.timedOut()) {
                return verdict(task, VerificationStatus.TIMED_OUT, first.results(), List.of(first.results()), 1, start,
                        "the test command ran past " + task.limits().testTimeoutS() + " s", first.output(), first.exitCode(), Verdict.Cause.TIMEOUT);
            }
            if (first.results().isEmpty() && (first.exitCode() >= 128 || first.exitCode() == 126 || first.exitCode() == 127)) {
                return infra(task, start, "the test command " + (first.exitCode() >= 128 ? "was killed by signal " + (first.exitCode() - 128)
                        : "could not run (exit " + first.exitCode() + ")") + " before any test reported: " + lastLine(first.output()));
            }
            runs.add(first.results());
            for (int i = 0; i < options.rerunFailures() && !resolved(task, combine(task, runs).results()); i++) {
                TestRun again = TestRun.execute(s, task, setup(), network);
                if (again.timedOut()) {
                    break;
                }
                runs.add(again.results());
            }
            Combined c = combine(task, runs);
            boolean resolved = resolved(task, c.results());
            // no test reported at all and the command failed: the tests never ran (a compile failure, a missing toolchain), so the
            // verdict says so rather than look like a patch that failed them
            boolean nothingRan = first.results().isEmpty() && first.exitCode() != 0;
            String why = nothingRan ? "the test command exited " + first.exitCode() + " before any test reported (the environment: a compile"
                    + " failure, a missing toolchain or dependency?): " + lastLine(first.output()) : null;
            if (!first.refused().isEmpty()) { // said, so that a verdict that ignored a planted report shows why
                why = (why == null ? "" : why + "; ") + "refused: " + String.join("; ", first.refused());
            }
            return verdict(task, resolved ? VerificationStatus.RESOLVED : VerificationStatus.UNRESOLVED, c.results(), runs, runs.size(),
                    start, why, first.output(), c.flaky(), first.exitCode(), nothingRan ? Verdict.Cause.ENVIRONMENT : null);
        } catch (SandboxException e) {
            return infra(task, start, e.getMessage());
        } catch (IllegalArgumentException e) {
            return infra(task, start, "bad task: " + e.getMessage());
        }
    }

    /**
     * What runs before the test command, in its shell (a local sandbox's /tmp lasts until a timeout,
     * a pod's for its life: the copy is made when it is missing): npm reads
     * its cache only where it may also write (an offline install from a read-only cache fails
     * ENOTCACHED), so the mounted one is copied; a failed copy exits 126, which reads as an
     * infrastructure error, never as the patch's.
     */
    private String setup() {
        return options.npmCache() == null ? null : "[ -d " + TestEnvironment.NPM_CACHE + " ] || cp -r /npm-cache " + TestEnvironment.NPM_CACHE
                + " || exit 126";
    }

    private TestEnvironment environmentOf(Toolchains.Choice jdk, PythonEnvironments.Built python) {
        return TestEnvironment.of(options.mavenRepository(), options.mavenHome(), options.npmCache(), jdk).withPython(python);
    }

    private SandboxSpec spec(Task task, Toolchains.Choice jdk, PythonEnvironments.Built python) {
        var base = SandboxSpec.of(WorkspaceSource.of(task.workspace(), options.mirrors())).withLimits(options.limits());
        return environmentOf(jdk, python).applyTo(base)
                .withLabels(Map.of("task", task.instanceId(), "purpose", "verify"));
    }

    /**
     * Applies a patch in the sandbox; returns null on success or why it did not apply. A candidate
     * ({@code allowFuzz}) gets SWE-bench's chain: {@code git apply}, {@code git apply --3way} (a
     * change the tree has already, such as a set-up edit the patch repeats, merges cleanly), then
     * {@code patch --batch --forward --fuzz=5}, the tree restored after each failed attempt, and a
     * patch found already applied ({@code git apply --check --reverse}) counts as applied.
     */
    private static String apply(Sandbox s, String patch, boolean allowFuzz) {
        s.writeFile(WORK + "/change.patch", patch.endsWith("\n") ? patch : patch + "\n");
        String p = WORK + "/change.patch";
        String restore = "git reset -q --hard && git clean -fdq -e " + WORK + "; ";
        String script = "git apply --whitespace=nowarn " + p + " 2>" + WORK + "/git.err && exit 0; "
                + (allowFuzz ? restore + "git apply --3way --whitespace=nowarn " + p + " >/dev/null 2>&1 && exit 0; " + restore
                        + "patch -p1 --batch --forward --fuzz=5 --no-backup-if-mismatch -i " + p + " > " + WORK + "/patch.out 2>&1 && exit 0; "
                        + restore + "git apply --check --reverse " + p + " >/dev/null 2>&1 && exit 0; " : "")
                + "cat " + WORK + "/git.err; [ -f " + WORK + "/patch.out ] && tail -n 5 " + WORK + "/patch.out; exit 1";
        ExecResult r = s.exec(script, STEP);
        s.exec("rm -rf " + WORK, STEP);
        return r.ok() ? null : ("git apply, git apply --3way and patch --fuzz=5 all failed: " + r.stdout().strip()).strip();
    }

    private static void resetToBase(Sandbox s, String base, Set<String> paths) {
        var script = new StringBuilder();
        for (String path : paths) {
            if (path.startsWith("/") || path.contains("..") || path.isBlank()) {
                continue;
            }
            String q = Shell.quote(path);
            script.append("if git cat-file -e ").append(Shell.quote(base + ":" + path)).append(" 2>/dev/null; then git checkout -q ")
                    .append(base).append(" -- ").append(q).append("; else rm -rf -- ").append(q).append("; fi\n");
        }
        if (!script.isEmpty()) {
            ExecResult r = s.exec(script.toString(), STEP);
            if (!r.ok()) {
                throw new SandboxException(SandboxException.Reason.IO, "resetting test files failed: " + r.stderr().strip());
            }
        }
    }

    /** Outcomes of the listed tests (missing when absent), combined over runs by the flaky rule. */
    record Combined(Map<String, TestStatus> results, List<String> flaky) {}

    Combined combine(Task task, List<Map<String, TestStatus>> runs) {
        var out = new LinkedHashMap<String, TestStatus>();
        var flaky = new ArrayList<String>();
        var listed = new ArrayList<String>(task.failToPass());
        listed.addAll(task.passToPass());
        List<TestIds> reports = runs.stream().map(TestIds::new).toList();
        for (String id : listed) {
            List<TestStatus> seen = reports.stream().map(r -> r.outcome(id)).toList();
            long passes = seen.stream().filter(x -> x == TestStatus.PASSED).count();
            if (passes > 0 && passes < seen.size()) {
                flaky.add(id);
            }
            TestStatus firstFailure = seen.stream().filter(x -> x != TestStatus.PASSED).findFirst().orElse(TestStatus.PASSED);
            boolean pass = switch (options.flakyRule()) {
                case STRICT -> passes == seen.size();
                case MAJORITY -> passes * 2 > seen.size();
                case ANY -> passes > 0;
            };
            out.put(id, pass ? TestStatus.PASSED : firstFailure);
        }
        return new Combined(out, flaky);
    }

    /** Whether the listed tests' combined outcomes resolve the task, by its grading rule (a test not in the map did not run). */
    static boolean resolved(Task task, Map<String, TestStatus> combined) {
        return task.grading().resolved(task.failToPass().stream().map(id -> combined.getOrDefault(id, TestStatus.MISSING)).toList(),
                task.passToPass().stream().map(id -> combined.getOrDefault(id, TestStatus.MISSING)).toList());
    }

    private Verdict verdict(Task task, VerificationStatus status, Map<String, TestStatus> results, List<Map<String, TestStatus>> runs, int n,
            long start, String reason, String log, Integer exitCode, Verdict.Cause cause) {
        return verdict(task, status, combine(task, runs.isEmpty() ? List.of(results) : runs).results(), runs, n, start, reason, log, List.of(),
                exitCode, cause);
    }

    private Verdict verdict(Task task, VerificationStatus status, Map<String, TestStatus> combined, List<Map<String, TestStatus>> runs, int n,
            long start, String reason, String log, List<String> flaky, Integer exitCode, Verdict.Cause cause) {
        var f2p = new LinkedHashMap<String, TestStatus>();
        var p2p = new LinkedHashMap<String, TestStatus>();
        for (String id : task.failToPass()) {
            f2p.put(id, combined.getOrDefault(id, TestStatus.MISSING));
        }
        for (String id : task.passToPass()) {
            p2p.put(id, combined.getOrDefault(id, TestStatus.MISSING));
        }
        return new Verdict(task.instanceId(), status, f2p, p2p, flaky, options.flakyRule(), n, (System.nanoTime() - start) / 1_000_000,
                reason, log, exitCode, cause, null);
    }

    private Verdict infra(Task task, long start, String reason) {
        return verdict(task, VerificationStatus.INFRA_ERROR, Map.of(), List.of(), 0, start, reason, "", List.of(), null, Verdict.Cause.INFRA);
    }

    private static String lastLine(String s) {
        String[] lines = s.strip().split("\n");
        return lines.length == 0 ? "" : lines[lines.length - 1];
    }
}
