package ai.openalice.rl.dispatcher.config;

import ai.openalice.rl.events.RunProfile;
import io.smallrye.config.ConfigMapping;
import io.smallrye.config.WithDefault;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;

/** task-dispatcher's settings ({@code dispatcher.*}). */
@ConfigMapping(prefix = "dispatcher")
public interface DispatcherConfig {

    /** Whether training groups are scheduled (off: intake and evaluation runs only). */
    @WithDefault("true")
    boolean train();

    /** Rollouts per GRPO group (G). */
    @WithDefault(RunProfile.GROUP_SIZE)
    int groupSize();

    /** Back-pressure: at most this many rollouts requested and not yet scored or failed. */
    @WithDefault(RunProfile.MAX_IN_FLIGHT)
    int maxInFlight();

    /** At most this many groups per scheduling pass (one transaction), so requests flow out while capacity is large. */
    @WithDefault("32")
    int maxGroupsPerPass();

    /** How often the scheduler and the deadline watch run (a Quarkus scheduler period: {@code 1s}, {@code 500ms}; {@code off} leaves it to callers). */
    @WithDefault("1s")
    String tick();

    /**
     * Whether the trainer filters compactly ({@code trainer.loss.compact-filter}): members that ran
     * out of turns, context or time leave their group there, so the pacer does not count them as
     * valid when it judges whether a group can teach the trainer. Keep the two settings equal.
     */
    @WithDefault(RunProfile.COMPACT_FILTER)
    boolean compactFilter();

    /** A rollout must be completed (rollouts.completed) this long after it was requested. */
    @WithDefault("PT20M")
    Duration runDeadline();

    /** …and verified and scored this long after it completed. */
    @WithDefault("PT10M")
    Duration scoreDeadline();

    /** Attempts of one member (first request included) before it is marked failed. */
    @WithDefault("3")
    int maxAttempts();

    /** Groups sampled more than this many policy versions behind the trainer are stale. */
    @WithDefault(RunProfile.MAX_STALENESS)
    int maxStaleness();

    /**
     * Synchronous (wait-for-checkpoint) scheduling, the baseline the asynchronous pipeline is measured
     * against: at each policy version, training groups are requested until max-in-flight ÷ group-size
     * of them can still teach the trainer (not finished all-solved, all-failed or without a valid
     * member, not dropped); then nothing more until the trainer publishes the next checkpoint.
     */
    @WithDefault("false")
    boolean sync();

    /**
     * Pacing of the asynchronous pipeline (staleness control as in AReaL): groups that can still
     * teach the trainer are requested at most {@code versions-ahead} policy versions' worth ahead of
     * it, so a generator faster than the trainer does not produce groups that go stale unused.
     */
    Pace pace();

    /** See {@link #pace()}. */
    interface Pace {
        /** Training groups the trainer consumes per policy version (its batch-groups × checkpoint-every); 0: no pacing. */
        @WithDefault(RunProfile.GROUPS_PER_VERSION)
        int groupsPerVersion();

        /** How many versions' worth of useful groups may be requested beyond what the trainer has consumed. */
        @WithDefault("2")
        int versionsAhead();

        /**
         * With the allowance used up, no training group in flight and no new version for this long,
         * the pacer starts counting afresh (the trainer dropped groups it had counted as useful);
         * also the pacer's memory is per process: a restart starts afresh.
         */
        @WithDefault("PT5M")
        Duration stallAfter();
    }

    /** What happens to a stale group still in flight: {@code drop} it, or {@code refresh} (drop and re-request the task at the current version). */
    @WithDefault("drop")
    StaleAction staleAction();

    /** {@code dispatcher.stale-action}; a value other than these stops start-up, naming the allowed ones. */
    enum StaleAction { DROP, REFRESH }

    /**
     * Settled training groups (with their rollouts) and solve history older than this are deleted,
     * every {@code prune-every}; tasks, evaluation runs and their groups stay. /stats then counts what
     * the window keeps.
     */
    @WithDefault("P30D")
    Duration keepHistory();

    /** How often history past {@code keep-history} is looked for (deleted in batches of 1,000). */
    @WithDefault("PT1H")
    Duration pruneEvery();

    /**
     * The largest task taken (its JSON, in bytes): a task travels whole inside tasks.accepted and
     * every rollouts.requested, Kafka records the outbox relays up to {@code alice.outbox.max-record-bytes}
     * (1,000,000); this leaves room for the rest of those events. A larger task is rejected naming its size.
     */
    @WithDefault("900000")
    int maxTaskBytes();

    /** Per-source limits on what {@code POST /tasks} takes (429 with {@code Retry-After} beyond them). */
    Quota quota();

    /** See {@link #quota()}. A source is the submitter's name when auth is on. */
    interface Quota {
        /** Training tasks of one source never scheduled yet (no group requested); a request that would pass it is refused. 0: no limit. */
        @WithDefault("10000")
        int pendingTasks();

        /** Tasks (new versions included) one source may add per hour, counted over the last 60 minutes. 0: no limit. */
        @WithDefault("20000")
        int submissionsPerHour();
    }

    /** Fair-share weights by task source (a source absent here weighs 1). */
    Map<String, Double> sourceWeights();

    /** Curriculum: after a group that was all solved or all failed, the task sits out this many scheduling rounds, doubling with each such group in a row… */
    @WithDefault("4")
    int curriculumBaseSkip();

    /** …up to this many. */
    @WithDefault("256")
    int curriculumMaxSkip();

    /**
     * Curriculum cohorts: the name of a task field (e.g. {@code family}, {@code repo}); tasks with
     * the same value also share a bench, with the same rule as a task's own. Unset: none.
     */
    Optional<String> curriculumCohort();

    /** Sampling of every turn. */
    Sampling sampling();

    /** Sampling parameters of the rollouts requested. */
    interface Sampling {
        @WithDefault(RunProfile.TEMPERATURE)
        double temperature();

        @WithDefault("1.0")
        double topP();

        @WithDefault(RunProfile.MAX_TOKENS_PER_TURN)
        int maxTokensPerTurn();

        /** A fixed seed for every rollout (reproducible runs); absent: the runner's own. */
        Optional<Long> seed();
    }
}
