package ai.openalice.rl.verifier.service;

import ai.openalice.rl.events.ArtifactRef;
import ai.openalice.rl.events.Envelope;
import ai.openalice.rl.events.RolloutCompleted;
import ai.openalice.rl.events.TaskAccepted;
import ai.openalice.rl.events.Termination;
import ai.openalice.rl.events.Topic;
import ai.openalice.rl.events.VerificationCompleted;
import ai.openalice.rl.events.VerificationStatus;
import ai.openalice.rl.harness.Harness;
import ai.openalice.rl.harness.Verdict;
import ai.openalice.rl.servicekit.BoundedRetry;
import ai.openalice.rl.servicekit.Inbox;
import ai.openalice.rl.servicekit.InstanceId;
import ai.openalice.rl.servicekit.TaskReplica;
import ai.openalice.rl.verifier.config.VerifierConfig;
import ai.openalice.rl.verifier.repository.EnvironmentChecks;
import ai.openalice.rl.verifier.repository.VerificationRepository;
import io.micrometer.core.instrument.MeterRegistry;
import io.vertx.mutiny.sqlclient.Pool;
import jakarta.annotation.PostConstruct;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;
import org.jboss.logging.Logger;

/**
 * Verifies rollouts: claims each rollout once, finds its task at the version it ran, runs the
 * harness (or passes an infrastructure failure of the episode through, never as a failed
 * verdict), and stores the verdict with its {@code verifications.completed} event, which carries
 * the rollout's header and forwards the episode it judged.
 */
@ApplicationScoped
public class VerificationService {
    private static final Logger LOG = Logger.getLogger(VerificationService.class);

    @Inject
    Harness harness;

    @Inject
    Pool pool;

    @Inject
    Inbox inbox;

    @Inject
    VerificationRepository verifications;

    @Inject
    VerifierConfig config;

    @Inject
    EnvironmentChecks environments;

    @Inject
    MeterRegistry registry;

    @Inject
    TestLogs logs;

    /** Storing a verdict survives a database hiccup: 4 attempts, 0.5 s doubling. */
    static final BoundedRetry STORE_RETRY = new BoundedRetry(4, Duration.ofMillis(500));

    private final AtomicInteger inFlight = new AtomicInteger();
    private String owner;
    private TaskReplica tasks;

    @PostConstruct
    void init() {
        owner = InstanceId.orDefault(config.instanceId(), "verifier");
        tasks = new TaskReplica(pool, "verifier");
        registry.gauge("verifier_in_flight", inFlight);
    }

    /** One record of {@code tasks.accepted}: the dispatcher's version of a task, stored as it says. */
    public void rememberTask(byte[] value) {
        inbox.<TaskAccepted>read(Topic.TASKS_ACCEPTED, value).ifPresent(in -> tasks.upsert(in.payload()));
    }

    public void verify(byte[] value) {
        var read = inbox.<RolloutCompleted>read(Topic.ROLLOUTS_COMPLETED, value);
        if (read.isEmpty()) {
            return;
        }
        Envelope<RolloutCompleted> in = read.get();
        RolloutCompleted e = in.payload();
        if (!verifications.claim(e, owner, config.claimLease())) {
            registry.counter("verifier_duplicates_total").increment();
            LOG.infof("%s already verified or being verified: redelivery ignored", e.logContext());
            return;
        }
        inFlight.incrementAndGet();
        try {
            Verdict v = judge(e);
            var event = Envelope.of(toEvent(e, v, logs.write(e.rolloutId(), v.log()).orElse(null)), in.traceparent());
            STORE_RETRY.run(() -> verifications.complete(e.rolloutId(), owner, v, event));
            registry.counter("verifier_verdicts_total", "status", v.status().wire()).increment();
            LOG.infof("%s %s in %d ms%s", e.logContext(), v.status().wire(), v.durationMs(), v.reason() == null ? "" : ": " + v.reason());
        } catch (RuntimeException failure) {
            // Nothing is lost: the claim is given back and the event goes to the dead-letter topic
            // with this reason, from where an operator replays it.
            try {
                verifications.release(e.rolloutId(), owner);
            } catch (RuntimeException inner) {
                failure.addSuppressed(inner);
            }
            throw new IllegalStateException(e.logContext() + ": could not store the verdict: " + failure.getMessage(), failure);
        } finally {
            inFlight.decrementAndGet();
        }
    }

    private Verdict judge(RolloutCompleted e) {
        if (e.termination() == Termination.INFRA_ERROR) {
            String why = e.error() == null ? "unknown" : e.error().kind() + ": " + e.error().message();
            return infra(e, "the episode ended in an infrastructure error (" + why + "); nothing to verify");
        }
        if (e.patchOmittedBytes() != null) {
            registry.counter("verifier_patches_omitted_total").increment();
            return new Verdict(e.taskId(), VerificationStatus.UNRESOLVED, Map.of(), Map.of(), List.of(), config.flakyRule(), 0, 0,
                    "the agent's diff was " + e.patchOmittedBytes() + " bytes, over the runner's limit, and was left out: no fix to test", "", null,
                    Verdict.Cause.PATCH, null);
        }
        var ref = e.ref();
        Optional<TaskReplica.Replicated> task = waitForTask(ref.taskId(), ref.taskVersion(), ref.contentHash());
        if (task.isEmpty()) {
            return infra(e, "task " + ref.taskId() + " v" + ref.taskVersion() + " has not arrived on tasks.accepted");
        }
        if (ref.contentHash() != null && !ref.contentHash().equals(task.get().contentHash())) {
            registry.counter("verifier_content_mismatches_total").increment();
            return infra(e, "task " + ref.taskId() + " v" + ref.taskVersion() + ": the rollout ran content " + ref.contentHash()
                    + ", this verifier holds " + task.get().contentHash() + "; not judged against other hidden tests");
        }
        Verdict v = harness.verify(task.get().task(), e.patch());
        return v.cause() == Verdict.Cause.ENVIRONMENT ? environmentOrPatch(e, task.get(), v) : v;
    }

    /**
     * The candidate's tests never reported. Whether that is the environment's fault or the patch's,
     * the gold patch of the same task version tells (verified once per version, kept): when it fails
     * the same way, the environment cannot run the tests — an infrastructure error, never a reward
     * of 0; when it runs them, the candidate broke the build or the test run — its verdict stands.
     */
    private Verdict environmentOrPatch(RolloutCompleted e, TaskReplica.Replicated task, Verdict v) {
        var t = task.task();
        if (t.patch() == null || t.patch().isBlank()) {
            return v; // no gold patch to tell the two apart
        }
        var check = environments.find(t.instanceId(), e.ref().taskVersion(), task.contentHash()).orElseGet(() -> {
            Verdict gold = harness.verify(t, t.patch());
            var c = new EnvironmentChecks.Check(gold.cause() != Verdict.Cause.ENVIRONMENT && gold.status() != VerificationStatus.INFRA_ERROR,
                    gold.reason());
            environments.record(t.instanceId(), e.ref().taskVersion(), task.contentHash(), c);
            registry.counter("verifier_environment_checks_total", "gold_ok", String.valueOf(c.goldOk())).increment();
            return c;
        });
        if (check.goldOk()) {
            return v.rejudged(v.status(), "the candidate's patch breaks the build or the test run (the gold patch runs the tests here): " + v.reason(),
                    null);
        }
        return v.rejudged(VerificationStatus.INFRA_ERROR, "the environment cannot run this task's tests — the gold patch fails the same way ("
                + check.reason() + "): " + v.reason(), Verdict.Cause.ENVIRONMENT);
    }

    /**
     * The task may trail the rollout (separate topics), and a row a release before tasks.accepted derived
     * may hold other content until the dispatcher's event replaces it: look again with a doubling pause,
     * a bounded number of times, for the content the rollout ran.
     */
    private Optional<TaskReplica.Replicated> waitForTask(String taskId, int version, String contentHash) {
        var retry = new BoundedRetry(config.taskWait().attempts(), config.taskWait().initialBackoff());
        return retry.until(() -> tasks.find(taskId, version), t -> t.isPresent() && (contentHash == null || contentHash.equals(t.get().contentHash())));
    }

    private Verdict infra(RolloutCompleted e, String reason) {
        return new Verdict(e.taskId(), VerificationStatus.INFRA_ERROR, Map.of(), Map.of(), List.of(), config.flakyRule(), 0, 0,
                reason, "", null, Verdict.Cause.INFRA, null);
    }

    /** The verdict with the rollout's header, its stored test log ({@code log}, null: none) and the episode it judged, as rubric-prm needs them. */
    static VerificationCompleted toEvent(RolloutCompleted e, Verdict v, ArtifactRef log) {
        String tail = v.log() == null || v.log().length() <= 4000 ? v.log() : v.log().substring(v.log().length() - 4000);
        var why = new VerificationCompleted.Explanation(v.cause() == null ? null : v.cause().wire(), v.exitCode(), tail);
        return new VerificationCompleted(e.ref(), v.status(), v.resolved(), v.failToPass(), v.passToPass(), v.flaky(), v.durationMs(), log, v.reason(),
                VerificationCompleted.Episode.of(e), why);
    }
}
