package ai.openalice.rl.runner.service;

import ai.openalice.rl.agent.external.ProgramEpisode;
import ai.openalice.rl.agent.format.CompactFormat;
import ai.openalice.rl.agent.format.JsonFunctionFormat;
import ai.openalice.rl.agent.format.ToolCallFormat;
import ai.openalice.rl.agent.loop.AgentLoop;
import ai.openalice.rl.agent.loop.Episode;
import ai.openalice.rl.agent.loop.LoopConfig;
import ai.openalice.rl.agent.loop.TestTimeSelection;
import ai.openalice.rl.agent.tools.Tools;
import ai.openalice.rl.artifacts.ArtifactStores;
import ai.openalice.rl.events.CheckpointPublished;
import ai.openalice.rl.events.Envelope;
import ai.openalice.rl.events.EventCodec;
import ai.openalice.rl.events.RolloutCompleted;
import ai.openalice.rl.events.RolloutRequested;
import ai.openalice.rl.events.Termination;
import ai.openalice.rl.events.Topic;
import ai.openalice.rl.events.Trajectory;
import ai.openalice.rl.events.TrajectoryRef;
import ai.openalice.rl.harness.HackAttempts;
import ai.openalice.rl.harness.SandboxReadable;
import ai.openalice.rl.harness.PythonEnvironments;
import ai.openalice.rl.harness.TestEnvironment;
import ai.openalice.rl.model.chat.ChatLayout;
import ai.openalice.rl.model.tokenizer.Tokenizer;
import ai.openalice.rl.policy.PolicyException;
import ai.openalice.rl.runner.config.RunnerConfig;
import ai.openalice.rl.runner.repository.LeaseRepository;
import ai.openalice.rl.sandbox.OutageWaitingProvider;
import ai.openalice.rl.sandbox.Sandbox;
import ai.openalice.rl.sandbox.SandboxException;
import ai.openalice.rl.sandbox.SandboxProvider;
import ai.openalice.rl.sandbox.SandboxSpec;
import ai.openalice.rl.sandbox.WorkspaceSource;
import ai.openalice.rl.sandbox.kubernetes.KubernetesSandboxConfig;
import ai.openalice.rl.servicekit.ArtifactsConfig;
import ai.openalice.rl.servicekit.DiskSpace;
import ai.openalice.rl.servicekit.Inbox;
import ai.openalice.rl.servicekit.InstanceId;
import ai.openalice.rl.servicekit.WaitsOutDatabaseOutages;
import ai.openalice.rl.servicekit.auth.ClientToken;
import com.fasterxml.jackson.core.JsonProcessingException;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.micrometer.core.instrument.MeterRegistry;
import io.quarkus.runtime.Startup;
import jakarta.annotation.PostConstruct;
import jakarta.annotation.PreDestroy;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.io.IOException;
import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import org.jboss.logging.Logger;

/**
 * Runs one rollout: takes the lease, builds a sandbox from the task's workspace, runs the agent
 * loop with the episode's policy, and publishes rollouts.completed exactly once per rollout id
 * (the lease's state and the event in one transaction). A sandbox or policy failure is an
 * {@code infra_error} episode, published so that the dispatcher retries it — never a reward of 0.
 * Made at start-up: settings it cannot work with (a model folder whose template and tokenizer
 * disagree, an agent program it cannot run) stop the start with the reason, rather than a runner
 * that reports ready and fails every rollout.
 */
@Startup
@ApplicationScoped
public class EpisodeService {
    private static final Logger LOG = Logger.getLogger(EpisodeService.class);

    @Inject
    Inbox inbox;

    @Inject
    RunnerConfig config;

    @Inject
    ArtifactsConfig artifactsConfig;

    @Inject
    LeaseRepository leases;

    @Inject
    MeterRegistry metrics;

    @Inject
    ClientToken clientToken;

    private String owner;
    private SandboxProvider sandboxes;
    private PolicyFactory policies;
    private ToolCallFormat format;
    private AgentLoop.Prompt prompt;
    private Tokenizer tokenizer;
    private ChatLayout layout;
    private final Set<UUID> inFlight = ConcurrentHashMap.newKeySet();
    private volatile boolean stopping;
    private DiskSpace disk;
    private ArtifactStores.Routed artifacts;
    private TrajectoryStorage trajectories;
    private AgentEnvironment environment;
    private AgentPrograms programs;

    @PostConstruct
    void init() {
        owner = InstanceId.orDefault(config.id(), "runner");
        artifacts = ArtifactsConfig.open(artifactsConfig, "trajectories", config.artifactDir());
        trajectories = new TrajectoryStorage(artifacts, artifacts.folder().orElse(config.artifactDir()), config.inlineTrajectoryBytes(),
                Duration.ofSeconds(1), () -> stopping, n -> metrics.counter("runner_disk_full_waits_total").increment(n));
        var mounted = new LinkedHashMap<String, Path>();
        mounted.put("runner.mirrors", config.mirrors().orElse(null));
        mounted.put("runner.maven-repository", config.mavenRepository().orElse(null));
        mounted.put("runner.maven-home", config.mavenHome().orElse(null));
        SandboxReadable.requireReadable("runner", mounted);
        var python = config.sandboxBackend() == RunnerConfig.SandboxBackend.LOCAL // a pod's image holds its own environment
                ? new PythonEnvironments(config.pythonEnvs().orElseGet(PythonEnvironments::defaultCache),
                        config.pythonRoots().orElseGet(PythonEnvironments::defaultRoots), config.pythonEnvsMaxGib())
                : null;
        environment = new AgentEnvironment(config.mavenRepository().orElse(null), config.mavenHome().orElse(null), null, python, metrics);
        var backend = SandboxBackends.open(config.sandboxBackend(), config.sandboxRoot(), this::kubernetesSettings,
                () -> new KubernetesClientBuilder().build());
        SandboxBackends.warmUp(backend);
        var waiting = OutageWaitingProvider.of(backend, config.sandboxOutageGrace());
        metrics.gauge("runner_sandbox_backend_available", waiting, w -> w.available() ? 1 : 0);
        metrics.more().counter("runner_sandbox_outage_waits_total", List.of(), waiting, w -> w.waits());
        sandboxes = waiting;
        format = switch (config.toolCallFormat()) {
            case JSON -> new JsonFunctionFormat();
            case LLAMA3_JSON -> JsonFunctionFormat.llama3();
            case COMPACT -> new CompactFormat();
        };
        var model = ModelLayout.open(config.modelDir(), config.enableThinking());
        tokenizer = model.tokenizer();
        layout = model.layout();
        prompt = switch (config.systemPrompt()) {
            case FULL -> AgentLoop.Prompt.FULL;
            case BRIEF -> AgentLoop.Prompt.BRIEF;
        };
        policies = new PolicyFactory(config, tokenizer, format, clientToken.supplier());
        programs = AgentPrograms.of(config, model, python).orElse(null);
        if (programs != null) {
            LOG.infof("episodes are played by the agent program '%s' (packages %s), its calls at %s", config.agentProgram().command().orElseThrow(),
                    programs.packages(), programs.setup().endpoint().baseUri());
        }
        metrics.gaugeCollectionSize("runner_episodes_in_flight", List.of(), inFlight);
        // at 0 from the start, so that a rate over them reads 0 rather than nothing until the first attempt
        metrics.counter("runner_rollouts_with_hack_attempts_total");
        for (var kind : HackAttempts.Kind.values()) {
            metrics.counter("runner_hack_attempts_total", "kind", kind.wire());
        }
        disk = DiskSpace.of(List.of(config.artifactDir(), config.sandboxRoot()), config.minFreeDiskMib() << 20);
        metrics.gauge("runner_disk_paused", disk, d -> d.paused() ? 1 : 0);
        metrics.gauge("runner_disk_free_bytes", disk, d -> d.leastFree());
    }

    private KubernetesSandboxConfig kubernetesSettings() {
        var d = KubernetesSandboxConfig.defaults(config.kubernetesNamespace(), owner);
        return new KubernetesSandboxConfig(d.namespace(), config.kubernetesImage(), d.workdir(), owner, config.kubernetesWarmPool(),
                d.podStartTimeout(), d.activeDeadline(), config.kubernetesCpu());
    }

    @PreDestroy
    void close() {
        if (programs != null) {
            programs.close();
        }
        sandboxes.close();
        artifacts.close();
    }

    public String owner() {
        return owner;
    }

    public Set<UUID> inFlight() {
        return Set.copyOf(inFlight);
    }

    /** Stops taking work (graceful shutdown) and gives back the leases of unfinished episodes. */
    /**
     * A checkpoint announced: with {@code runner.policy=tinker}, the next completions are drawn from
     * its sampler weights; one that names none (a trainer on the built-in learner) leaves the sampler where it is.
     */
    public void checkpoint(CheckpointPublished c) {
        policies.tinker().ifPresent(t -> {
            if (c.sampler() == null) {
                LOG.warnf("checkpoint v%d names no Tinker sampler weights (is trainer.learner=tinker?): still sampling v%d", c.policyVersion(),
                        t.weights().version());
                return;
            }
            t.publish(c.policyVersion(), c.sampler());
        });
    }

    public void stop() {
        stopping = true;
        int released = leases.release(owner);
        LOG.infof("runner %s stopping: %d lease(s) handed back", owner, released);
    }

    /** Whether {@link #stop} was called: the service is shutting down. */
    public boolean stopping() {
        return stopping;
    }

    /** One rollout request; a database outage on the way is waited out (the request stays unacknowledged), never dead-lettered. */
    @WaitsOutDatabaseOutages
    public void run(byte[] value) {
        if (stopping) {
            throw new IllegalStateException("runner " + owner + " is shutting down; the rollout stays for another runner");
        }
        var read = inbox.<RolloutRequested>read(Topic.ROLLOUTS_REQUESTED, value);
        if (read.isEmpty()) {
            return;
        }
        awaitRoom();
        Envelope<RolloutRequested> in = read.get();
        RolloutRequested r = in.payload();
        if (!leases.claim(r.rolloutId(), r.attempt(), owner, config.leaseTimeout())) {
            metrics.counter("runner_skipped_total").increment();
            LOG.infof("%s is published or held by a live runner: skipped", r.logContext());
            return;
        }
        inFlight.add(r.rolloutId());
        try {
            Episode e = episode(r);
            Long omitted = omittedPatchBytes(e.patch(), config.maxPatchBytes());
            if (omitted != null) {
                metrics.counter("runner_patches_omitted_total").increment();
                LOG.warnf("%s: the diff is %d bytes (JSON), over runner.max-patch-bytes %d: left out, judged unresolved", r.logContext(),
                        omitted, config.maxPatchBytes());
            }
            var hacks = hackAttempts(e);
            RolloutCompleted completed;
            try {
                completed = new RolloutCompleted(r.ref(), owner, e.termination(), e.error(), omitted != null ? "" : e.patch(),
                        trajectories.store(r.rolloutId(), e.trajectory()), e.stats(), omitted, hacks);
            } catch (TrajectoryStorage.NotStored notStored) {
                // the runner's fault, not the episode's: an infrastructure failure (the dispatcher requests the member again), never a
                // request dead-lettered and left to its deadline
                metrics.counter("runner_trajectory_store_failures_total").increment();
                LOG.errorf("%s: %s; completed as an infrastructure failure", r.logContext(), notStored.getMessage());
                completed = new RolloutCompleted(r.ref(), owner, Termination.INFRA_ERROR, new RolloutCompleted.Failure("artifact_store",
                        notStored.getMessage()), "", new TrajectoryRef.Inline(new Trajectory(List.of())), e.stats(), null, hacks);
            }
            var event = Envelope.of(completed, in.traceparent());
            if (!leases.publish(r.rolloutId(), owner, event)) {
                LOG.warnf("%s: the lease was taken over while running; this result is dropped", r.logContext());
                return;
            }
            record(e);
            LOG.infof("%s %s after %d turn(s) in %d ms", r.logContext(), e.termination().wire(), e.stats().turns(), e.stats().wallTimeMs());
        } finally {
            inFlight.remove(r.rolloutId());
        }
    }

    /**
     * The episode's reward-hack attempts (HackAttempts: test edits, test configuration, skip markers,
     * forced exits, the verifier's paths), counted in runner_hack_attempts_total{kind} and
     * runner_rollouts_with_hack_attempts_total beside runner_episodes_total.
     */
    private List<RolloutCompleted.HackAttempt> hackAttempts(Episode e) {
        var out = HackAttempts.of(e.trajectory().turns()).stream()
                .map(a -> new RolloutCompleted.HackAttempt(a.turn(), a.kind().wire(), a.detail())).toList();
        for (var a : out) {
            metrics.counter("runner_hack_attempts_total", "kind", a.kind()).increment();
        }
        if (!out.isEmpty()) {
            metrics.counter("runner_rollouts_with_hack_attempts_total").increment();
        }
        return out;
    }

    /** Before a rollout is claimed: a volume under runner.min-free-disk-mib pauses the runner here, the rollout unclaimed. */
    private void awaitRoom() {
        try {
            if (!disk.awaitRoom("runner " + owner + ": new rollouts", () -> stopping)) {
                throw new IllegalStateException("runner " + owner + " is shutting down while waiting for disk space; the rollout stays for another");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while waiting for disk space", e);
        }
    }

    /** The diff's size as a JSON string (quotes and escapes included: what it adds to the event) when over {@code limit}, else null. */
    static Long omittedPatchBytes(String patch, int limit) {
        try {
            long size = EventCodec.mapper().writeValueAsBytes(patch == null ? "" : patch).length;
            return size > limit ? size : null;
        } catch (JsonProcessingException e) {
            throw new IllegalStateException(e);
        }
    }

    /** The agent's sandbox: the task's workspace, and what its tests need from the host (Maven, its JDK, its Python environment) as the verifier has it. */
    SandboxSpec agentSpec(RolloutRequested r) {
        return agentSpec(r, agentEnvironment(r));
    }

    private TestEnvironment agentEnvironment(RolloutRequested r) {
        return environment.of(r.task(), WorkspaceSource.of(r.task().workspace(), config.mirrors().orElse(null)), r.logContext());
    }

    private SandboxSpec agentSpec(RolloutRequested r, TestEnvironment env) {
        return env.applyTo(SandboxSpec.of(WorkspaceSource.of(r.task().workspace(), config.mirrors().orElse(null))))
                .withLabels(Map.of("task", r.taskId(), "rollout", r.rolloutId().toString()));
    }

    /** The episode, played again in a new sandbox when its sandbox died under it ({@link SandboxDeaths}). */
    private Episode episode(RolloutRequested r) {
        return SandboxDeaths.rerun(() -> episodeOnce(r), config.sandboxDeathRetries(), () -> stopping || Thread.currentThread().isInterrupted(),
                (died, n) -> {
                    metrics.counter("runner_sandbox_deaths_total").increment();
                    LOG.warnf("%s: the sandbox died under the episode (%s); playing it again in a new sandbox (%d of %d), not as an attempt",
                            r.logContext(), died.error().message(), n, config.sandboxDeathRetries());
                });
    }

    private Episode episodeOnce(RolloutRequested r) {
        var limits = r.task().limits();
        int context = limits.maxContextTokens() == null ? config.maxContextTokens() : Math.min(limits.maxContextTokens(), config.maxContextTokens());
        var cfg = LoopConfig.defaults(limits.maxSteps(), context).withTimeout(Duration.ofSeconds(limits.episodeTimeoutS()))
                .withSampling(r.sampling().temperature(), r.sampling().topP(), r.sampling().seed(), r.sampling().maxTokensPerTurn());
        TestEnvironment env = agentEnvironment(r);
        if (programs != null) {
            return programEpisode(r, env, cfg);
        }
        try (Sandbox sandbox = sandboxes.create(agentSpec(r, env))) {
            prepareWorkspace(r, env, sandbox);
            var selection = config.testTimeCandidates() < 2 ? null : new TestTimeSelection(config.testTimeCandidates(),
                    config.testTimeBeta(), new RubricStepScorer(URI.create(config.rubricUrl()), r.taskId(), r.ref().taskVersion(),
                            clientToken.supplier()));
            var loop = new AgentLoop(policies.forEpisode(r.taskId(), r.rolloutId()), tokenizer, format, Tools.standard(), selection)
                    .withPrompt(prompt).withLayout(layout);
            return loop.run(r.task(), sandbox, cfg);
        } catch (SandboxException | PolicyException ex) {
            return infra(ex);
        }
    }

    /** The episode played by {@code runner.agent-program} in the same sandbox the built-in loop would have. */
    private Episode programEpisode(RolloutRequested r, TestEnvironment env, LoopConfig cfg) {
        try (var episode = ProgramEpisode.open(programs.setup(), programs.program(), r.task().problemStatement(),
                policies.forEpisode(r.taskId(), r.rolloutId()), cfg);
                Sandbox sandbox = sandboxes.create(episode.spec(agentSpec(r, env)))) {
            prepareWorkspace(r, env, sandbox);
            return episode.run(sandbox);
        } catch (PythonEnvironments.Unavailable e) {
            return infra("agent_program", "the agent program's environment: " + e.getMessage(), null);
        } catch (SandboxException | PolicyException ex) {
            return infra(ex);
        }
    }

    /**
     * The workspace as SWE-bench's images hold it: the environment's set-up edits committed (the
     * repository as the tests will see it) and the project installed, so that the agent's commands
     * import what it edits. What fails is logged and counted, and the agent works without it: the
     * verdict, which the verifier gives with its own set-up, is not at stake.
     */
    private void prepareWorkspace(RolloutRequested r, TestEnvironment env, Sandbox sandbox) {
        String editsFailed = env.commitWorkspaceEdits(sandbox);
        if (editsFailed != null) {
            metrics.counter("runner_workspace_setup_failed_total", "step", "edits").increment();
            LOG.warnf("%s: the environment's set-up edits do not apply to the workspace (%s); the agent works without them", r.logContext(), editsFailed);
        }
        String installFailed = env.installProject(sandbox);
        if (installFailed != null) {
            metrics.counter("runner_workspace_setup_failed_total", "step", "install").increment();
            LOG.warnf("%s: the project does not install in the workspace (%s); the agent works without it installed", r.logContext(), installFailed);
        }
    }

    /** A sandbox's or the policy's failure, as the episode's infrastructure error. */
    private static Episode infra(RuntimeException ex) {
        return infra(ex instanceof SandboxException ? "sandbox" : "policy", ex.getMessage(), ex instanceof SandboxException se ? se.reason() : null);
    }

    private static Episode infra(String kind, String message, SandboxException.Reason reason) {
        return new Episode(new Trajectory(List.of()), Termination.INFRA_ERROR, new RolloutCompleted.Failure(kind, message), "",
                new RolloutCompleted.Stats(0, 0, 0, 0, 0, 0), reason);
    }

    /** Deletes trajectory files older than {@code runner.keep-artifacts}; counted in {@code runner_artifacts_pruned_total} and {@code _bytes_total}. */
    public void pruneArtifacts() {
        try {
            var pruned = artifacts.prune("", config.keepArtifacts(), Instant.now());
            metrics.counter("runner_artifacts_pruned_total").increment(pruned.artifacts());
            metrics.counter("runner_artifacts_pruned_bytes_total").increment(pruned.bytes());
            if (pruned.artifacts() > 0) {
                LOG.infof("deleted %d trajectory file(s), %d bytes, older than %s", pruned.artifacts(), pruned.bytes(), config.keepArtifacts());
            }
        } catch (IOException e) {
            LOG.warnf("artifact retention: %s; trying again at the next prune (runner.prune-every)", e.getMessage());
        }
    }

    private void record(Episode e) {
        metrics.counter("runner_episodes_total", "termination", e.termination().wire()).increment();
        metrics.counter("runner_turns_total").increment(e.stats().turns());
        metrics.counter("runner_policy_ms_total").increment(e.stats().policyTimeMs());
        metrics.counter("runner_tool_ms_total").increment(e.stats().toolTimeMs());
        metrics.counter("runner_overhead_ms_total").increment(Math.max(0, e.stats().wallTimeMs() - e.stats().policyTimeMs() - e.stats().toolTimeMs()));
    }
}
