package ai.openalice.rl.dispatcher.model;

import ai.openalice.rl.events.CheckpointPublished;

/**
 * The terms the dispatcher schedules under: its own settings until the trainer states its terms
 * with a checkpoint, then the trainer's — the trainer owns what its loss assumes of the rollouts.
 * Where the trainer has no say (a temperature of null, during imitation), the dispatcher's own
 * setting stays. {@code contextLength} null: no bound beyond the task's own and the runner's.
 */
public record Terms(double temperature, boolean compactFilter, int maxStaleness, int groupsPerVersion, Integer contextLength, boolean fromTrainer) {

    /** The dispatcher's own settings, before the trainer has said anything. */
    public static Terms own(double temperature, boolean compactFilter, int maxStaleness, int groupsPerVersion) {
        return new Terms(temperature, compactFilter, maxStaleness, groupsPerVersion, null, false);
    }

    /** These terms with the trainer's {@code stated} over them (none: unchanged). */
    public Terms following(CheckpointPublished.Terms stated) {
        if (stated == null) {
            return this;
        }
        return new Terms(stated.temperature() == null ? temperature : stated.temperature(), stated.compactFilter(), stated.maxStaleness(),
                stated.groupsPerVersion(), stated.contextLength(), true);
    }

    /** A task's context bound ({@code null}: none) within these terms. */
    public Integer contextBound(Integer task) {
        if (contextLength == null) {
            return task;
        }
        return task == null ? contextLength : Math.min(task, contextLength);
    }
}
