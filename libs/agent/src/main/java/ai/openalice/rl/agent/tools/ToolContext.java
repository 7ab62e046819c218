package ai.openalice.rl.agent.tools;

import ai.openalice.rl.sandbox.Sandbox;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.HashMap;
import java.util.Map;

/**
 * The episode's state that tools share: the sandbox, time limits, and the edit history that
 * {@code file_editor undo_edit} walks back.
 *
 * @param defaultTimeout per-call timeout of {@code bash} when the call gives none
 * @param maxTimeout the longest per-call timeout a call may ask for
 */
public final class ToolContext {
    private final Sandbox sandbox;
    private final Duration defaultTimeout;
    private final Duration maxTimeout;
    private final Map<String, Deque<String>> history = new HashMap<>();

    public ToolContext(Sandbox sandbox, Duration defaultTimeout, Duration maxTimeout) {
        this.sandbox = sandbox;
        this.defaultTimeout = defaultTimeout;
        this.maxTimeout = maxTimeout;
    }

    public Sandbox sandbox() {
        return sandbox;
    }

    public Duration defaultTimeout() {
        return defaultTimeout;
    }

    public Duration maxTimeout() {
        return maxTimeout;
    }

    /** Remembers a file's content before an edit ({@code null}: the file did not exist). */
    void rememberBefore(String path, String content) {
        history.computeIfAbsent(path, k -> new ArrayDeque<>()).push(content == null ? NONE : content);
    }

    /** The content before the last edit of {@code path}, removing it from the history; {@code null} when there is none. */
    String popBefore(String path) {
        Deque<String> d = history.get(path);
        return d == null || d.isEmpty() ? null : d.pop();
    }

    /** Marks "the file did not exist" in the history. */
    static final String NONE = "\u0000alice-rl:no-file\u0000";
}
