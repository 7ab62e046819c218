package ai.openalice.rl.rubric.service;

import ai.openalice.rl.artifacts.ArtifactStores;
import ai.openalice.rl.events.Envelope;
import ai.openalice.rl.events.EventCodec;
import ai.openalice.rl.events.MaskKind;
import ai.openalice.rl.events.RewardScored;
import ai.openalice.rl.events.TaskAccepted;
import ai.openalice.rl.events.Termination;
import ai.openalice.rl.events.Topic;
import ai.openalice.rl.events.Trajectory;
import ai.openalice.rl.events.VerificationCompleted;
import ai.openalice.rl.events.VerificationStatus;
import ai.openalice.rl.events.task.Task;
import ai.openalice.rl.policy.OpenAiPolicy;
import ai.openalice.rl.prm.EpisodeFacts;
import ai.openalice.rl.prm.Privileged;
import ai.openalice.rl.prm.Rubric;
import ai.openalice.rl.prm.RubricParser;
import ai.openalice.rl.prm.Scorer;
import ai.openalice.rl.prm.StepUtility;
import ai.openalice.rl.rubric.config.RubricConfig;
import ai.openalice.rl.rubric.repository.RubricStore;
import ai.openalice.rl.servicekit.ArtifactsConfig;
import ai.openalice.rl.servicekit.BoundedRetry;
import ai.openalice.rl.servicekit.Inbox;
import com.fasterxml.jackson.core.JsonProcessingException;
import io.micrometer.core.instrument.MeterRegistry;
import jakarta.annotation.PostConstruct;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.net.URI;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import org.jboss.logging.Logger;

/**
 * Turns a verdict into a reward: the episode the verdict carries (trajectory, patch, termination)
 * scored by the task's rubric (its own, or the built-in one), composed with r_exec and the margin
 * γ; the rollout's header passes through unchanged. An infrastructure failure — of the episode or
 * of the verification — passes through as masked, never as a reward. One score per rollout however
 * often the verdict is delivered.
 */
@ApplicationScoped
public class ScoringService {
    private static final Logger LOG = Logger.getLogger(ScoringService.class);

    @Inject
    RubricStore store;

    @Inject
    RubricConfig config;

    @Inject
    MeterRegistry metrics;

    @Inject
    Inbox inbox;

    @Inject
    ArtifactsConfig artifactsConfig;

    /** Where the runners' stored trajectories are read from, checked against the sha256 the event carries. */
    private ArtifactStores.Routed artifacts;

    /** One record of {@code tasks.accepted}: the dispatcher's version of a task, stored as it says. */
    public void rememberTask(byte[] value) {
        inbox.<TaskAccepted>read(Topic.TASKS_ACCEPTED, value).ifPresent(in -> store.tasks().upsert(in.payload()));
    }

    public void score(byte[] value) {
        var read = inbox.<VerificationCompleted>read(Topic.VERIFICATIONS_COMPLETED, value);
        if (read.isEmpty()) {
            return;
        }
        Envelope<VerificationCompleted> in = read.get();
        VerificationCompleted v = in.payload();
        if (store.scored(v.rolloutId())) {
            metrics.counter("rubric_duplicates_total").increment();
            return;
        }
        RewardScored scored;
        String breakdown;
        var episode = v.episode();
        if (v.status() == VerificationStatus.INFRA_ERROR || episode.termination() == Termination.INFRA_ERROR) {
            boolean inEpisode = episode.termination() == Termination.INFRA_ERROR;
            String why = inEpisode ? "episode ended in infra_error" : "verification infra_error: " + v.error();
            var kind = inEpisode ? MaskKind.EPISODE_INFRA_ERROR : MaskKind.VERIFICATION_INFRA_ERROR;
            scored = new RewardScored(v.ref(), true, why, kind, episode.termination(), null, null, config.gamma(), null, null, List.of(),
                    episode.trajectory(), null);
            breakdown = "[]";
            metrics.counter("rubric_masked_total").increment();
        } else {
            int version = v.ref().taskVersion();
            var wait = new BoundedRetry(config.waitAttempts(), config.waitBackoff());
            Optional<Task> task = wait.until(() -> store.task(v.taskId(), version), Optional::isPresent);
            if (task.isEmpty()) {
                throw new IllegalStateException(v.logContext() + ": task v" + version + " never arrived on tasks.accepted");
            }
            Rubric rubric = rubricOf(task.get(), version, v.logContext());
            Trajectory turns = artifacts.trajectory(episode.trajectory());
            var facts = EpisodeFacts.of(turns, episode.patch(), task.get().limits().maxSteps(), episode.termination());
            var privileged = Privileged.of(task.get());
            var result = Scorer.score(rubric, facts, privileged, v.resolved(), config.gamma(), config.submitRequired());
            var criteria = result.criteria().stream().map(c -> new RewardScored.Criterion(c.id(), c.weight(), c.q(), c.detail())).toList();
            scored = new RewardScored(v.ref(), false, null, null, episode.termination(), result.rExec(), result.sPrm(), config.gamma(), result.reward(),
                    rubric.version(), criteria, episode.trajectory(), StepUtility.ofEpisode(turns, privileged, task.get().limits().maxSteps()));
            try {
                breakdown = EventCodec.mapper().writeValueAsString(criteria);
            } catch (JsonProcessingException e) {
                throw new IllegalStateException(e);
            }
        }
        var event = Envelope.of(scored, in.traceparent());
        if (store.saveScore(v.rolloutId(), scored.masked(), scored.reward(), scored.sPrm(), scored.rExec(), breakdown, event)) {
            metrics.counter("rubric_scored_total").increment();
            LOG.infof("%s %s", v.logContext(), scored.masked() ? "masked: " + scored.maskReason() : "R=" + scored.reward() + " s_prm=" + scored.sPrm());
        }
    }

    private RubricAgent agent;

    @PostConstruct
    void init() {
        artifacts = ArtifactsConfig.reader(artifactsConfig);
        if (config.agent().enabled()) {
            agent = new RubricAgent(new OpenAiPolicy(URI.create(config.agent().url()), null, -1,
                    Duration.ofMinutes(2)), config.agent().maxTokens());
        }
    }

    /**
     * The task's own rubric (its {@code rubric} field, versioned with the task); else, with the
     * Rubric Agent on, the model-written one kept for this task version; else the built-in one.
     */
    Rubric rubricOf(Task task, int taskVersion, String context) {
        var own = task.raw().get("rubric");
        if (own != null && !own.isNull()) {
            return RubricParser.parse(own, taskVersion + 1);
        }
        if (agent != null) {
            var kept = store.rubric(task.instanceId(), taskVersion);
            if (kept.isEmpty()) {
                kept = agent.write(task, reason -> LOG.warnf("%s: %s; the built-in rubric scores it", context, reason));
                kept.ifPresent(json -> store.saveRubric(task.instanceId(), taskVersion, "agent", json));
                kept = kept.isPresent() ? store.rubric(task.instanceId(), taskVersion) : kept;
            }
            if (kept.isPresent()) {
                return RubricParser.parse(kept.get(), taskVersion + 1);
            }
        }
        return Rubric.builtIn();
    }

}
