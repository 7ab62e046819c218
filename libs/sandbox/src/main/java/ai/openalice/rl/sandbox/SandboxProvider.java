package ai.openalice.rl.sandbox;

/** Creates sandboxes on one backend ({@code local} bubblewrap, {@code kubernetes} pods). */
public interface SandboxProvider extends AutoCloseable {

    String name();

    /** A new sandbox with a fresh workspace; {@link SandboxException} when the backend cannot make one. */
    Sandbox create(SandboxSpec spec);

    @Override
    void close();
}
