package ai.openalice.rl.dispatcher.model;

import java.util.Arrays;
import java.util.EnumSet;
import java.util.Set;

/**
 * The life of one attempt of a group member, as {@code dispatcher.rollouts.state} holds it, with the
 * transition table the dispatcher applies: an event moves a rollout only from the states listed for
 * its target, so a late or repeated event changes nothing (a verdict after the score, a second
 * completion). {@code pending} (an evaluation group waiting for capacity) → {@code requested} →
 * {@code completed} → {@code verified} → {@code scored}; or {@code retried} (lost, or an
 * infrastructure failure: the member's next attempt carries on), {@code failed} (out of attempts),
 * {@code dropped} (stale).
 */
public enum RolloutState {
    PENDING("pending"),
    REQUESTED("requested"),
    COMPLETED("completed"),
    VERIFIED("verified"),
    SCORED("scored"),
    RETRIED("retried"),
    FAILED("failed"),
    DROPPED("dropped");

    /** In flight: requested and not yet settled; these count against the cap and have a deadline. */
    public static final Set<RolloutState> LIVE = EnumSet.of(REQUESTED, COMPLETED, VERIFIED);

    /** A group is not finished while a member is in one of these (live, or waiting for capacity). */
    public static final Set<RolloutState> UNFINISHED = EnumSet.of(PENDING, REQUESTED, COMPLETED, VERIFIED);

    private final String wire;

    RolloutState(String wire) {
        this.wire = wire;
    }

    /** The value in {@code dispatcher.rollouts.state}. */
    public String wire() {
        return wire;
    }

    public static RolloutState of(String wire) {
        return Arrays.stream(values()).filter(s -> s.wire.equals(wire)).findFirst()
                .orElseThrow(() -> new IllegalArgumentException("'" + wire + "' is not a rollout state"));
    }

    /** The states a rollout may move to this one from. */
    public Set<RolloutState> from() {
        return switch (this) {
            case PENDING -> EnumSet.noneOf(RolloutState.class); // only created so
            case REQUESTED -> EnumSet.of(PENDING);
            // a verdict may overtake its completion (separate topics), a score both
            case COMPLETED -> EnumSet.of(REQUESTED);
            case VERIFIED -> EnumSet.of(REQUESTED, COMPLETED);
            case SCORED, RETRIED, DROPPED -> LIVE;
            case FAILED -> EnumSet.of(RETRIED); // the last attempt given up
        };
    }

    /** Whether an event may move a rollout from {@code current} to this state. */
    public boolean follows(RolloutState current) {
        return from().contains(current);
    }

    /** Whether nothing moves a rollout on from this state. */
    public boolean settled() {
        return Arrays.stream(values()).noneMatch(next -> next.follows(this));
    }

    /** The event a live rollout waits for in this state (what a passed deadline says was lost). */
    public String awaits() {
        return switch (this) {
            case REQUESTED -> "rollouts.completed";
            case COMPLETED -> "verifications.completed";
            case VERIFIED -> "rewards.scored";
            default -> throw new IllegalStateException(wire + " is not a live state");
        };
    }

    /** The wire names of {@code states}, as a SQL array parameter ({@code state = ANY($n)}). */
    public static String[] wires(Set<RolloutState> states) {
        return states.stream().map(RolloutState::wire).toArray(String[]::new);
    }
}
