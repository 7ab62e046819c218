package ai.openalice.rl.dispatcher.model;

import ai.openalice.rl.events.task.FieldError;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import java.util.List;

/**
 * What happened to one submitted task: a new version was added, the same content was already there,
 * other content holds its version (a resubmission without newVersion), or it was rejected with
 * every reason. {@link #line} is its line in a JSONL body (null for a single task); {@link #status}
 * names the case on the wire ({@code POST /tasks} answers).
 */
@JsonPropertyOrder({"line", "taskId", "status", "version", "errors"})
public sealed interface IntakeOutcome {
    Integer line();

    String taskId();

    /** The task version it stands at (null when rejected). */
    @JsonProperty("version")
    Integer version();

    /** Why it was not accepted (empty when it was). */
    @JsonProperty("errors")
    List<FieldError> errors();

    @JsonProperty("status")
    default String status() {
        return switch (this) {
            case Added a -> "added";
            case Unchanged u -> "unchanged";
            case Conflict c -> "conflict";
            case Rejected r -> "rejected";
        };
    }

    /** Whether the task was not taken (rejected, or in conflict with what its version holds). */
    default boolean refused() {
        return this instanceof Rejected || this instanceof Conflict;
    }

    record Added(Integer line, String taskId, Integer version) implements IntakeOutcome {
        @Override
        public List<FieldError> errors() {
            return List.of();
        }
    }

    record Unchanged(Integer line, String taskId, Integer version) implements IntakeOutcome {
        @Override
        public List<FieldError> errors() {
            return List.of();
        }
    }

    /** Version {@code version} exists with other content. */
    record Conflict(Integer line, String taskId, Integer version) implements IntakeOutcome {
        @Override
        public List<FieldError> errors() {
            return List.of(new FieldError("instance_id", FieldError.Code.CONFLICT, "task " + taskId + " v" + version
                    + " exists with different content; submit with newVersion=true to add v" + (version + 1)));
        }
    }

    record Rejected(Integer line, String taskId, List<FieldError> errors) implements IntakeOutcome {
        public Rejected {
            errors = List.copyOf(errors);
        }

        @Override
        public Integer version() {
            return null;
        }
    }
}
