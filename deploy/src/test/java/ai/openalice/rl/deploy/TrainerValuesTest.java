package ai.openalice.rl.deploy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * What the chart tells the trainer and the runners about where the steps run and where the run is
 * recorded ({@code services.trainer.learner}, {@code services.trainer.tracking}): values rendered and
 * read back from the Deployments' environment.
 */
class TrainerValuesTest {
    /** learner.tinker.runnersSample: the runners sample on the trainer's engine, told its URL, base model and key in the one place the trainer is. */
    @Test
    void runnersSampleOnTheTrainersEngineWhenAsked() {
        var all = Chart.objects(Chart.render(Map.of("services.trainer.learner.kind", "tinker", "services.trainer.learner.tinker.url",
                "http://skyrl-tinker.training:8000", "services.trainer.learner.tinker.baseModel", "Qwen/Qwen3-8B",
                "services.trainer.learner.tinker.apiKeySecret.name", "tinker-key", "services.trainer.learner.tinker.runnersSample", "true")));
        assertEquals("0", env(all, "alice-rl-trainer").get("TRAINER_OPTIM_CLIP_NORM"), "SkyRL's engine cannot clip: trained without");
        var clipping = env(Chart.objects(Chart.render(Map.of("services.trainer.learner.kind", "tinker", "services.trainer.learner.tinker.url",
                "http://skyrl-tinker.training:8000", "services.trainer.learner.tinker.engineClipsGradients", "true"))), "alice-rl-trainer");
        assertEquals("true", clipping.get("TRAINER_TINKER_ENGINE_CLIPS_GRADIENTS"));
        assertNull(clipping.get("TRAINER_OPTIM_CLIP_NORM"), "trainer.optim.clip-norm as configured, sent as grad_clip_norm");
        var env = env(all, "alice-rl-sandbox-runner");
        assertEquals("tinker", env.get("RUNNER_POLICY"));
        assertEquals("http://skyrl-tinker.training:8000", env.get("RUNNER_TINKER_URL"));
        assertEquals("Qwen/Qwen3-8B", env.get("RUNNER_TINKER_BASE_MODEL"));
        assertEquals("/etc/alice-rl/tinker/api-key", env.get("RUNNER_TINKER_API_KEY_FILE"));
        var runner = Chart.of(all, Deployment.class).stream().filter(d -> d.getMetadata().getName().equals("alice-rl-sandbox-runner")).findFirst()
                .orElseThrow().getSpec().getTemplate().getSpec();
        assertEquals("tinker-key", runner.getVolumes().stream().filter(v -> v.getName().equals("tinker-api-key")).findFirst().orElseThrow()
                .getSecret().getSecretName());
        assertTrue(runner.getContainers().getFirst().getVolumeMounts().stream().anyMatch(m -> m.getMountPath().equals("/etc/alice-rl/tinker")));
        var noBase = assertThrows(RuntimeException.class, () -> Chart.render(Map.of("services.trainer.learner.kind", "tinker",
                "services.trainer.learner.tinker.url", "http://skyrl-tinker.training:8000", "services.trainer.learner.tinker.runnersSample", "true")));
        assertTrue(noBase.getMessage().contains("services.trainer.learner.tinker.baseModel"), noBase.getMessage());
    }

    private static Map<String, String> env(List<HasMetadata> all, String deployment) {
        var env = new HashMap<String, String>();
        Chart.of(all, Deployment.class).stream().filter(d -> d.getMetadata().getName().equals(deployment)).findFirst().orElseThrow().getSpec()
                .getTemplate().getSpec().getContainers().getFirst().getEnv().forEach(e -> env.put(e.getName(), e.getValue()));
        return env;
    }

    /** learner.kind tinker: the trainer is told the engine's URL and base model, and reads the API key from the Secret mounted as a file. */
    @Test
    void aTinkerLearnerTakesTheEnginesUrlAndItsKeyFromASecret() {
        var all = Chart.objects(Chart.render(Map.of("services.trainer.learner.kind", "tinker", "services.trainer.learner.tinker.url",
                "http://skyrl-tinker.training:8000", "services.trainer.learner.tinker.baseModel", "Qwen/Qwen3-8B",
                "services.trainer.learner.tinker.apiKeySecret.name", "tinker-key")));
        var trainer = Chart.of(all, Deployment.class).stream().filter(d -> d.getMetadata().getName().equals("alice-rl-trainer")).findFirst()
                .orElseThrow().getSpec().getTemplate().getSpec();
        var env = new HashMap<String, String>();
        trainer.getContainers().getFirst().getEnv().forEach(e -> env.put(e.getName(), e.getValue()));
        assertEquals("tinker", env.get("TRAINER_LEARNER"));
        assertEquals("http://skyrl-tinker.training:8000", env.get("TRAINER_TINKER_URL"));
        assertEquals("Qwen/Qwen3-8B", env.get("TRAINER_TINKER_BASE_MODEL"));
        assertEquals("/etc/alice-rl/tinker/api-key", env.get("TRAINER_TINKER_API_KEY_FILE"));
        var volume = trainer.getVolumes().stream().filter(v -> v.getName().equals("tinker-api-key")).findFirst().orElseThrow();
        assertEquals("tinker-key", volume.getSecret().getSecretName());
        assertEquals("api-key", volume.getSecret().getItems().getFirst().getPath());
        assertTrue(trainer.getContainers().getFirst().getVolumeMounts().stream().anyMatch(m -> m.getMountPath().equals("/etc/alice-rl/tinker")));
        for (var d : Chart.of(all, Deployment.class)) {
            if (!d.getMetadata().getName().equals("alice-rl-trainer")) {
                assertTrue(d.getSpec().getTemplate().getSpec().getContainers().getFirst().getEnv().stream()
                        .noneMatch(e -> e.getName().startsWith("TRAINER_")), d.getMetadata().getName() + " is not told the learner");
            }
        }
        assertTrue(env(all, "alice-rl-sandbox-runner").keySet().stream().noneMatch(k -> k.startsWith("RUNNER_TINKER")),
                "runners ask the inference service unless runnersSample");
        var noUrl = assertThrows(RuntimeException.class, () -> Chart.render(Map.of("services.trainer.learner.kind", "tinker")));
        assertTrue(noUrl.getMessage().contains("services.trainer.learner.tinker.url"), noUrl.getMessage());
        var badKind = assertThrows(RuntimeException.class, () -> Chart.render(Map.of("services.trainer.learner.kind", "megatron")));
        assertTrue(badKind.getMessage().contains("kind"), badKind.getMessage());
    }

    /** tracking: the trainer (only it) is told MLflow's URL, the experiment and the OTLP endpoint, and reads MLflow's token from a Secret. */
    @Test
    void theTrainerRecordsItsRunInMlflowWhenAsked() {
        var all = Chart.objects(Chart.render(Map.of("services.trainer.tracking.mlflow", "http://mlflow.mlops:5000",
                "services.trainer.tracking.experiment", "qwen3-8b-swe", "services.trainer.tracking.otlpEndpoint",
                "http://otel-collector.observability:4318/v1/traces", "services.trainer.tracking.tokenSecret.name", "mlflow-token")));
        var env = env(all, "alice-rl-trainer");
        assertEquals("http://mlflow.mlops:5000", env.get("TRAINER_TRACKING_MLFLOW"));
        assertEquals("qwen3-8b-swe", env.get("TRAINER_TRACKING_EXPERIMENT"));
        assertEquals("http://otel-collector.observability:4318/v1/traces", env.get("TRAINER_TRACKING_OTLP_ENDPOINT"));
        var token = Chart.of(all, Deployment.class).stream().filter(d -> d.getMetadata().getName().equals("alice-rl-trainer")).findFirst()
                .orElseThrow().getSpec().getTemplate().getSpec().getContainers().getFirst().getEnv().stream()
                .filter(e -> e.getName().equals("MLFLOW_TRACKING_TOKEN")).findFirst().orElseThrow();
        assertEquals("mlflow-token", token.getValueFrom().getSecretKeyRef().getName());
        assertEquals("token", token.getValueFrom().getSecretKeyRef().getKey());
        assertTrue(env(Chart.objects(Chart.render(Map.of())), "alice-rl-trainer").keySet().stream().noneMatch(k -> k.startsWith("TRAINER_TRACKING")),
                "nothing recorded by default");
        var bad = assertThrows(RuntimeException.class, () -> Chart.render(Map.of("services.trainer.tracking.mlflow", "mlflow:5000")));
        assertTrue(bad.getMessage().contains("services.trainer.tracking.mlflow"), bad.getMessage());
    }
}
