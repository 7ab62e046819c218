package ai.openalice.rl.core.filter;

/** Why an episode ended (mirrors the events' termination reasons; rl-core depends on nothing). */
public enum EndReason {
    SUBMITTED, MAX_STEPS, MAX_CONTEXT, TIMEOUT, INFRA_ERROR
}
