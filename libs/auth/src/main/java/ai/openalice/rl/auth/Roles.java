package ai.openalice.rl.auth;

import java.util.List;

/**
 * The roles a bearer token's {@code groups} claim grants (the door each one opens is listed in
 * {@code docs/security.md}): {@code submitter} sends tasks, {@code operator} starts evaluation runs
 * and anything else that changes state, {@code reader} reads status and statistics,
 * {@code policy-client} asks the inference service for completions, {@code scorer} asks rubric-prm
 * for a score (the runner does, for step utilities). Health and metrics need none.
 */
public final class Roles {
    public static final String SUBMITTER = "submitter";
    public static final String OPERATOR = "operator";
    public static final String READER = "reader";
    public static final String POLICY_CLIENT = "policy-client";
    public static final String SCORER = "scorer";

    public static final List<String> ALL = List.of(SUBMITTER, OPERATOR, READER, POLICY_CLIENT, SCORER);

    private Roles() {}
}
