package ai.openalice.rl.sandbox.kubernetes;

/** Label keys and values of the Kubernetes objects alice-rl creates for sandboxes: one place, for selectors and clean-up. */
public final class SandboxLabels {
    public static final String MANAGED_BY = "app.kubernetes.io/managed-by";
    public static final String MANAGED_BY_VALUE = "alice-rl";
    public static final String ROLE = "alice-rl.openalice.ai/role";
    public static final String ROLE_SANDBOX = "sandbox";
    /** The runner that owns the pod; a restarted runner reaps its predecessor's pods. */
    public static final String OWNER = "alice-rl.openalice.ai/owner";
    public static final String SANDBOX_ID = "alice-rl.openalice.ai/sandbox-id";
    /** {@code warm} while in the pool, {@code leased} while an episode uses it. */
    public static final String STATE = "alice-rl.openalice.ai/state";
    public static final String STATE_WARM = "warm";
    public static final String STATE_LEASED = "leased";
    public static final String NETWORK_POLICY = "alice-rl-sandbox-deny-all";

    private SandboxLabels() {}
}
