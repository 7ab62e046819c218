package ai.openalice.rl.prm;

import java.util.List;

/** K weighted criteria (u_k description, z_k check, w_k weight), weights summing to 1; versioned per task. */
public record Rubric(int version, List<Criterion> criteria) {

    /** One criterion. */
    public record Criterion(String id, String description, Check check, double weight) {}

    public Rubric {
        criteria = List.copyOf(criteria);
        if (criteria.isEmpty()) {
            throw new IllegalArgumentException("a rubric needs at least one criterion");
        }
        double sum = criteria.stream().mapToDouble(Criterion::weight).sum();
        if (Math.abs(sum - 1) > 1e-9) {
            throw new IllegalArgumentException("criteria weights must sum to 1, got " + sum);
        }
        for (Criterion c : criteria) {
            if (!(c.weight() >= 0)) {
                throw new IllegalArgumentException("criterion " + c.id() + " has weight " + c.weight());
            }
        }
    }

    /** The built-in rubric (SWE-TRACE's four families): localisation, edit constraints, trajectory discipline, budget. */
    public static Rubric builtIn() {
        return new Rubric(1, List.of(
                new Criterion("localisation", "viewed and edited the files the fix is in", new Check.Localisation(), 0.3),
                new Criterion("edit_constraints", "no test edits, confined and proportionate diff, nothing deleted", new Check.EditConstraints(), 0.3),
                new Criterion("trajectory_discipline", "tested after editing, no repeated failures, no churn, readable turns",
                        new Check.TrajectoryDiscipline(), 0.25),
                new Criterion("budget", "steps used relative to the budget", new Check.Budget(), 0.15)));
    }
}
