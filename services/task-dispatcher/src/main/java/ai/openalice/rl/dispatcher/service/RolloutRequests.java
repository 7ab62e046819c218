package ai.openalice.rl.dispatcher.service;

import ai.openalice.rl.dispatcher.config.DispatcherConfig;
import ai.openalice.rl.dispatcher.repository.GroupStore;
import ai.openalice.rl.dispatcher.repository.TaskStore;
import ai.openalice.rl.events.Envelope;
import ai.openalice.rl.events.RolloutRef;
import ai.openalice.rl.events.RolloutRequested;
import ai.openalice.rl.events.task.Task;
import ai.openalice.rl.servicekit.Sql;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.time.Duration;
import java.time.Instant;
import java.util.UUID;

/**
 * What the dispatcher asks the runners for: a group's members, sampled at the temperature of the
 * terms in force when the group was made, with the context bound of the terms, due by the run
 * deadline; a retried member's next attempt while attempts remain. {@link GroupStore} records it;
 * the request goes into the outbox in the same transaction.
 */
@ApplicationScoped
public class RolloutRequests {
    @Inject
    DispatcherConfig config;

    @Inject
    TrainerTerms terms;

    @Inject
    GroupStore groups;

    /** Makes a group of {@code size} members; {@code requested} sends them now, else they wait for {@link #release}. */
    public UUID create(Sql sql, TaskStore.Versioned task, long policyVersion, int size, RolloutRef.Mode mode, UUID evalRunId, boolean requested,
            Long round) {
        double temperature = terms.current().temperature();
        UUID group = groups.insertGroup(sql, task, policyVersion, size, mode, evalRunId, requested, round, temperature);
        for (int m = 0; m < size; m++) {
            UUID rollout = UUID.randomUUID();
            if (requested) {
                request(sql, task, group, rollout, policyVersion, size, m, 1, mode, evalRunId, temperature);
            } else {
                groups.insertPending(sql, rollout, group, m);
            }
        }
        return group;
    }

    /** Sends a pending group (an evaluation waiting for capacity). */
    public void release(Sql sql, GroupStore.Group group, TaskStore.Versioned task) {
        for (var member : groups.releasePending(sql, group.groupId())) {
            request(sql, task, group.groupId(), member.rolloutId(), group.policyVersion(), group.size(), member.index(), 1, group.mode(),
                    group.evalRunId(), temperatureOf(group));
        }
    }

    /**
     * Gives up on this attempt of a member: a new attempt is requested while attempts remain
     * ({@code dispatcher.max-attempts}), else the member is failed with the reason. Never a reward.
     * False when the rollout was not live.
     */
    public boolean retry(Sql sql, UUID rollout, String reason, TaskStore tasks) {
        var retried = groups.markRetried(sql, rollout, reason);
        if (retried.isEmpty()) {
            return false;
        }
        var r = retried.get();
        if (r.attempt() >= config.maxAttempts()) {
            groups.fail(sql, rollout, "gave up after " + r.attempt() + " attempt(s); last: " + reason);
            return true;
        }
        GroupStore.Group g = groups.group(sql, r.groupId()).orElseThrow();
        var task = tasks.task(g.taskId(), g.taskVersion())
                .orElseThrow(() -> new IllegalStateException("group " + g.groupId() + ": task " + g.taskId() + " is gone"));
        request(sql, task, g.groupId(), UUID.randomUUID(), g.policyVersion(), g.size(), r.member(), r.attempt() + 1, g.mode(), g.evalRunId(),
                temperatureOf(g));
        return true;
    }

    /** The temperature the group is sampled at (a group created before it was recorded: today's). */
    private double temperatureOf(GroupStore.Group group) {
        return group.temperature() == null ? terms.current().temperature() : group.temperature();
    }

    private void request(Sql sql, TaskStore.Versioned versioned, UUID group, UUID rollout, long policyVersion, int size, int member, int attempt,
            RolloutRef.Mode mode, UUID evalRunId, double temperature) {
        Task task = versioned.task();
        Instant deadline = Instant.now().plus(runDeadline(task));
        groups.insertRequested(sql, rollout, group, member, attempt, deadline);
        var s = config.sampling();
        var ref = new RolloutRef(task.instanceId(), versioned.version(), versioned.contentHash(), group, rollout, member, attempt, size, policyVersion, mode,
                evalRunId, new RolloutRef.Sampling(temperature, s.topP(), s.maxTokensPerTurn(), s.seed().orElse(null)));
        var view = task.agentView(versioned.version(), versioned.contentHash());
        view = view.withLimits(view.limits().withMaxContextTokens(terms.current().contextBound(view.limits().maxContextTokens())));
        GroupStore.OUTBOX.enqueue(sql, Envelope.of(new RolloutRequested(ref, view, deadline)));
    }

    /** The configured run deadline, but never shorter than the task's own episode timeout plus a minute. */
    Duration runDeadline(Task task) {
        Duration episode = Duration.ofSeconds(task.limits().episodeTimeoutS()).plusMinutes(1);
        return episode.compareTo(config.runDeadline()) > 0 ? episode : config.runDeadline();
    }
}
