package ai.openalice.rl.events;

import ai.openalice.rl.events.task.FieldError;
import ai.openalice.rl.events.task.Limits;
import ai.openalice.rl.events.task.WorkspaceSpec;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;

/** A representative, fully populated instance of every event payload. */
final class Samples {
    static final UUID GROUP = UUID.fromString("4f1c2a8e-9b7d-4e21-8c3a-1d2e3f4a5b6c");
    static final UUID ROLLOUT = UUID.fromString("0a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d");
    static final String SHA = "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08";

    private Samples() {}

    static ObjectNode sweBenchTask() {
        var t = JsonNodeFactory.instance.objectNode();
        t.put("instance_id", "acme__calc-42");
        t.put("repo", "acme/calc");
        t.put("base_commit", "3f2a1b0c");
        t.put("problem_statement", "add(2, 3) returns -1; expected 5.");
        t.put("patch", "diff --git a/calc.py b/calc.py\n");
        t.put("test_patch", "diff --git a/test_calc.py b/test_calc.py\n");
        t.put("FAIL_TO_PASS", "[\"test_add (test_calc.CalcTest)\"]");
        t.putArray("PASS_TO_PASS").add("test_sub (test_calc.CalcTest)");
        t.put("version", "1.0");
        t.put("environment_setup_commit", "3f2a1b0c");
        t.put("hints_text", "");
        t.put("created_at", "2026-01-02T03:04:05Z");
        t.put("test_command", "python -m unittest -v");
        t.putObject("test_report").put("format", "unittest");
        t.put("split", "train");
        t.put("difficulty", "easy"); // unknown field: kept
        return t;
    }

    static AgentTask agentTask() {
        return new AgentTask("acme__calc-42", 1, SHA, "add(2, 3) returns -1; expected 5.",
                new WorkspaceSpec.Git("/srv/mirrors/acme__calc", "3f2a1b0c"), new Limits(50, 8192, 300, 300), "1.2",
                JsonNodeFactory.instance.objectNode().set("python", JsonNodeFactory.instance.objectNode().put("version", "3.9")));
    }

    static Trajectory trajectory() {
        var args = JsonNodeFactory.instance.objectNode().put("command", "python -m unittest");
        return new Trajectory(List.of(
                new Turn(0, List.of(1, 2, 3), List.of(7, 8), List.of(-0.25, -1.5), 3, new Action("bash", args, null),
                        "OK\n", 12, 40),
                new Turn(1, List.of(9), List.of(10), List.of(-0.5), 3,
                        new Action("unparsed", JsonNodeFactory.instance.objectNode(), "no tool call found"), "format help", 5, 0)));
    }

    static RolloutRef ref() {
        return new RolloutRef("acme__calc-42", 1, SHA, GROUP, ROLLOUT, 5, 1, 8, 3, RolloutRef.Mode.TRAIN, null,
                new RolloutRef.Sampling(1.0, 1.0, 256, 17L));
    }

    static List<EventPayload> all() {
        var f2p = new LinkedHashMap<String, TestStatus>();
        f2p.put("test_add (test_calc.CalcTest)", TestStatus.PASSED);
        return List.of(
                new TaskSubmitted("acme-publisher", sweBenchTask(), false, 5),
                new TaskRejected("acme-publisher", "acme__calc-43",
                        List.of(new FieldError("workspace.path", FieldError.Code.MISSING, "required")), "{\"instance_id\":\"acme__calc-43\"}",
                        TaskRejected.Origin.kafka("tasks.submitted", 2, 1234)),
                new RolloutRequested(ref(), agentTask(), Instant.parse("2026-11-30T03:00:00Z")),
                new RolloutCompleted(ref(), "runner-a", Termination.SUBMITTED, null,
                        "diff --git a/calc.py b/calc.py\n", new TrajectoryRef.Inline(trajectory()),
                        new RolloutCompleted.Stats(2, 4, 3, 900, 17, 40), null,
                        List.of(new RolloutCompleted.HackAttempt(1, "test_edit", "tests/test_calc.py"))),
                new VerificationCompleted(ref(), VerificationStatus.RESOLVED, true, f2p,
                        Map.of("test_sub (test_calc.CalcTest)", TestStatus.PASSED), List.of(), 1500,
                        new ArtifactRef("file:///var/alice/logs/x.log", SHA, 2048), null,
                        new VerificationCompleted.Episode(Termination.SUBMITTED, "diff --git a/calc.py b/calc.py\n", new TrajectoryRef.Inline(trajectory())),
                        new VerificationCompleted.Explanation(null, 0, "Ran 2 tests in 0.001s\n\nOK\n")),
                new RewardScored(ref(), false, null, null, Termination.SUBMITTED, 1, 0.75, 0.8,
                        0.8 + 0.2 * 0.75, 1, List.of(new RewardScored.Criterion("budget_awareness", 1.0, 0.75, "6 of 50 steps")),
                        new TrajectoryRef.Stored(new ArtifactRef("file:///var/alice/trajectories/y.json", SHA, 4096)), List.of(0.5, 0.9, 1.0)),
                new CheckpointPublished(4, 40, new ArtifactRef("file:///var/alice/ckpt/v4/model.onnx", SHA, 1 << 20),
                        new ArtifactRef("file:///var/alice/ckpt/v4/manifest.json", SHA, 512), null, Map.of("loss", 0.125),
                        new CheckpointPublished.Terms(0.7, false, 4, 1, 4096), "tinker://model_e5633/sampler_weights/v4"),
                new TrainingMetrics(40, 4, 0.125, 0.05, 0.001, 2.5, 0.6, 0.5, 0.7, 64, 12800,
                        new TrainingMetrics.GroupCounts(1, 2, 5), Map.of("max_steps", 3L), Map.of("0", 50L, "1", 14L), 200, 1800),
                new TaskAccepted("acme__calc-42", 2, SHA, sweBenchTask()),
                new RewardScored(ref(), true, "verification infra_error: sandbox did not start",
                        MaskKind.VERIFICATION_INFRA_ERROR, Termination.SUBMITTED, null, null, 0.8, null, null, List.of(),
                        new TrajectoryRef.Inline(trajectory()), null));
    }
}
