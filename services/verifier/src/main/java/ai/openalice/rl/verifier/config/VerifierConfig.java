package ai.openalice.rl.verifier.config;

import ai.openalice.rl.harness.FlakyRule;
import ai.openalice.rl.harness.PythonEnvironments;
import io.smallrye.config.ConfigMapping;
import io.smallrye.config.WithDefault;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;

/** The verifier service's settings ({@code verifier.*}). */
@ConfigMapping(prefix = "verifier")
public interface VerifierConfig {

    /** Who this instance is in claims and logs; defaults to the host name. */
    Optional<String> instanceId();

    /** Extra runs of the test command when a listed test fails, to detect flaky tests. */
    @WithDefault("0")
    int reruns();

    /** How a test with differing outcomes is judged: strict, majority or any. */
    @WithDefault("strict")
    FlakyRule flakyRule();

    /** Git mirrors folder for tasks given as repo + base_commit. */
    Optional<Path> mirrors();

    /** Local Maven repository mounted read-only in sandboxes for offline Java builds. */
    Optional<Path> mavenRepository();

    /** Maven 3.9+ installation used inside sandboxes. */
    Optional<Path> mavenHome();

    /** An npm cache mounted read-only in sandboxes (copied to a writable one there) for offline JavaScript builds. */
    Optional<Path> npmCache();

    /**
     * Where the Python environments of tasks that name {@code toolchain.python} are built and
     * cached (readable by sandbox users); default: {@code PythonEnvironments.defaultCache()}.
     */
    Optional<Path> pythonEnvs();

    /**
     * The size bound of {@link #pythonEnvs()} in GiB: after a build, the environments used longest
     * ago (and not in the last 2 hours) are removed until it holds; 0: no bound.
     */
    @WithDefault("" + PythonEnvironments.DEFAULT_MAX_GIB)
    int pythonEnvsMaxGib();

    /** Folders of Python installations by version ({@code X.Y.Z/bin/pythonX.Y}) environments are built from; default: pyenv's. */
    Optional<List<Path>> pythonRoots();

    /**
     * How long making a sandbox waits out a back end that cannot start one, with pauses of 1 s
     * doubling to 30 s, before the verification is an infrastructure error (which costs the rollout
     * an attempt). PT0S: no waiting.
     */
    @WithDefault("PT5M")
    Duration sandboxOutageGrace();

    /**
     * The artifact store's test logs: each verdict's test output is kept as {@code <rolloutId>.log}
     * here (with {@code alice.artifacts.bucket}, in the bucket instead), named by the event's
     * {@code log}, and deleted after {@code keep-verifications} with its verdict.
     */
    @WithDefault("${user.home}/.alice-rl/artifacts/logs")
    Path artifactDir();

    /** Where local sandboxes live. */
    @WithDefault("/tmp/alice-rl-verifier-sandboxes")
    Path sandboxRoot();

    /** After this, a verification claimed by an instance that went silent may be taken over. */
    @WithDefault("PT30M")
    Duration claimLease();

    /**
     * A finished verification (its verdict) is deleted this long after it finished (looked for every
     * {@code prune-every}), in
     * batches of 1,000. Longer than rollouts.completed keeps its records (7 days), so that a
     * redelivered event always finds its verdict and is never verified twice.
     */
    @WithDefault("P14D")
    Duration keepVerifications();

    /** How often verifications past {@code keep-verifications} are looked for. */
    @WithDefault("PT1H")
    Duration pruneEvery();

    /** How often unsent outbox events are relayed to Kafka (1 s at least). */
    @WithDefault("1s")
    String outboxInterval();

    /** Waiting for a task version that has not arrived yet (tasks.accepted and rollouts.completed are separate topics). */
    TaskWait taskWait();

    /** The bounded retry of waiting for a task. */
    interface TaskWait {
        /** How many times to look for the task. */
        @WithDefault("8")
        int attempts();

        /** The first pause; it doubles after each attempt. */
        @WithDefault("PT0.25S")
        Duration initialBackoff();
    }
}
