package ai.openalice.rl.deploy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.marcnuri.helm.Helm;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.LabelSelectorBuilder;
import io.fabric8.kubernetes.api.model.Namespace;
import io.fabric8.kubernetes.api.model.PersistentVolumeClaim;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicy;
import io.fabric8.kubernetes.api.model.policy.v1.PodDisruptionBudget;
import io.fabric8.kubernetes.api.model.rbac.PolicyRule;
import io.fabric8.kubernetes.api.model.rbac.Role;
import io.fabric8.kubernetes.api.model.rbac.RoleBinding;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/** The Helm chart: lint, default and non-default renders checked object by object, the values schema, the generated manifests in sync. */
class HelmChartTest {
    static final Set<String> SERVICES = Set.of("task-dispatcher", "sandbox-runner", "verifier", "rubric-prm", "inference", "trainer");
    static final Path MANIFESTS = Path.of("k8s", "alice-rl.yaml");

    @Test
    void theChartLintsCleanlyInStrictMode() {
        var result = new Helm(Chart.DIR).lint().strict().call();
        assertFalse(result.isFailed(), String.join("\n", result.getMessages()));
    }

    /** Off by default (it needs the Prometheus Operator's CRD); on, every metric a rule reads is one a service exports. */
    @Test
    void theDiskAlertsReadMetricsTheServicesExport() throws Exception {
        assertTrue(Chart.objects(Chart.render(Map.of())).stream().noneMatch(o -> o.getKind().equals("PrometheusRule")), "off by default");
        var rule = Chart.objects(Chart.render(Map.of("alerts.enabled", "true"))).stream().filter(o -> o.getKind().equals("PrometheusRule"))
                .findFirst().orElseThrow();
        String yaml = Chart.SERIALIZATION.asYaml(rule);
        String sources;
        try (var files = Files.walk(Chart.DIR.resolve("../../services"))) {
            var all = new StringBuilder();
            for (Path f : files.filter(f -> f.toString().endsWith(".java") && f.toString().contains("/src/main/")).toList()) {
                all.append(Files.readString(f));
            }
            sources = all.toString();
        }
        for (String metric : List.of("runner_disk_paused", "runner_disk_free_bytes", "trainer_disk_free_bytes", "trainer_disk_full_waits_total")) {
            assertTrue(yaml.contains(metric), metric + " in the rules");
            assertTrue(sources.contains("\"" + metric + "\""), metric + " is registered by a service");
        }
        assertTrue(yaml.contains("< 5368709120"), "the low-space threshold from the values: " + yaml);
    }

    @Test
    void everyServiceIsADeploymentWithImageProbesAndResources() {
        var all = Chart.objects(Chart.render(Map.of()));
        var deployments = Chart.of(all, Deployment.class);
        assertEquals(SERVICES, deployments.stream().map(d -> d.getMetadata().getLabels().get("app.kubernetes.io/name")).collect(Collectors.toSet()));
        for (Deployment d : deployments) {
            Container c = d.getSpec().getTemplate().getSpec().getContainers().getFirst();
            String name = d.getMetadata().getLabels().get("app.kubernetes.io/name");
            assertEquals("ghcr.io/openalice/alice-rl-" + name + ":0.1.0-SNAPSHOT", c.getImage());
            assertEquals("/q/health/live", c.getLivenessProbe().getHttpGet().getPath(), name);
            assertEquals("/q/health/ready", c.getReadinessProbe().getHttpGet().getPath(), name);
            for (String r : List.of("cpu", "memory")) {
                assertNotNull(c.getResources().getRequests().get(r), name + " requests " + r);
                assertNotNull(c.getResources().getLimits().get(r), name + " limits " + r);
            }
            var env = c.getEnv().stream().filter(e -> e.getName().equals("ALICE_DB_PASSWORD")).findFirst().orElseThrow();
            assertEquals("alice-rl-db", env.getValueFrom().getSecretKeyRef().getName(), "the password comes from a Secret, never a value");
            assertTrue(c.getVolumeMounts().stream().anyMatch(m -> m.getMountPath().equals("/var/lib/alice-rl/artifacts")), name);
        }
        var trainer = deployment(deployments, "trainer");
        assertEquals("Recreate", trainer.getSpec().getStrategy().getType(), "never two trainers on one registry, even during a rollout");
        assertTrue(trainer.getSpec().getTemplate().getSpec().getContainers().getFirst().getResources().getLimits().get("nvidia.com/gpu") == null);
        var verifier = deployment(deployments, "verifier").getSpec().getTemplate().getSpec().getContainers().getFirst();
        assertTrue(verifier.getSecurityContext().getPrivileged(), "bubblewrap sandboxes inside the verifier pod");
        var dispatcher = deployment(deployments, "task-dispatcher").getSpec().getTemplate().getSpec();
        assertFalse(dispatcher.getContainers().getFirst().getSecurityContext().getAllowPrivilegeEscalation());
        assertFalse(dispatcher.getAutomountServiceAccountToken(), "only the runner talks to the API server");
        // PDBs for the services with more than one replica: runner and verifier
        assertEquals(Set.of("alice-rl-sandbox-runner", "alice-rl-verifier"),
                Chart.of(all, PodDisruptionBudget.class).stream().map(p -> p.getMetadata().getName()).collect(Collectors.toSet()));
        assertEquals("ReadWriteMany", Chart.of(all, PersistentVolumeClaim.class).getFirst().getSpec().getAccessModes().getFirst());
    }

    @Test
    void theRunnersRoleGrantsExactlyWhatItNeedsInTheSandboxNamespace() {
        var all = Chart.objects(Chart.render(Map.of()));
        var role = Chart.of(all, Role.class).getFirst();
        assertEquals("alice-rl-sandboxes", role.getMetadata().getNamespace());
        var grants = new TreeSet<String>();
        for (PolicyRule r : role.getRules()) {
            for (String group : r.getApiGroups()) {
                for (String res : r.getResources()) {
                    for (String verb : r.getVerbs()) {
                        grants.add((group.isEmpty() ? "core" : group) + "/" + res + ":" + verb);
                    }
                }
            }
        }
        assertEquals(new TreeSet<>(List.of("core/pods:create", "core/pods:delete", "core/pods:get", "core/pods:list", "core/pods:watch",
                "core/pods:patch", "core/pods:update", "core/pods/exec:create", "core/pods/exec:get",
                "networking.k8s.io/networkpolicies:create", "networking.k8s.io/networkpolicies:get", "networking.k8s.io/networkpolicies:update")),
                grants);
        var binding = Chart.of(all, RoleBinding.class).getFirst();
        assertEquals("alice-rl-sandbox-runner", binding.getSubjects().getFirst().getName());
        assertEquals("alice-rl", binding.getSubjects().getFirst().getNamespace());
        var runner = deployment(Chart.of(all, Deployment.class), "sandbox-runner").getSpec().getTemplate().getSpec();
        assertEquals("alice-rl-sandbox-runner", runner.getServiceAccountName());
        assertEquals("restricted", Chart.of(all, Namespace.class).getFirst().getMetadata().getLabels().get("pod-security.kubernetes.io/enforce"));
    }

    @Test
    void sandboxPodsMayNeitherReceiveNorSend() {
        var policy = policies(Map.of()).get("alice-rl-sandbox-deny-all");
        assertEquals("alice-rl-sandboxes", policy.getMetadata().getNamespace());
        assertEquals(Map.of("alice-rl.openalice.ai/role", "sandbox"), policy.getSpec().getPodSelector().getMatchLabels());
        assertEquals(List.of("Ingress", "Egress"), policy.getSpec().getPolicyTypes());
        assertTrue(policy.getSpec().getEgress().isEmpty(), "no egress rule: every egress denied");
        assertTrue(policy.getSpec().getIngress().isEmpty(), "no ingress rule: every ingress denied");
    }

    /**
     * The control plane: the runner alone reaches inference and rubric-prm, anyone the dispatcher
     * (empty dispatcherFrom), the monitoring namespace every service's HTTP port; a peer added for
     * inference is added there only; off, only the sandbox policy is left.
     */
    @Test
    void onlyTheRunnerReachesInferenceAndRubricAndOnlyTheDispatcherFacesOutward() {
        var all = policies(Map.of());
        assertEquals(7, all.size(), all.keySet().toString());
        var runner = new LabelSelectorBuilder()
                .withMatchLabels(Map.of("app.kubernetes.io/instance", "alice-rl", "app.kubernetes.io/name", "sandbox-runner")).build();
        var monitoring = Map.of("kubernetes.io/metadata.name", "monitoring");
        for (String name : SERVICES) {
            var p = all.get("alice-rl-" + name);
            assertEquals(name, p.getSpec().getPodSelector().getMatchLabels().get("app.kubernetes.io/name"));
            assertEquals(List.of("Ingress"), p.getSpec().getPolicyTypes());
            var rules = p.getSpec().getIngress();
            for (var rule : rules) {
                assertEquals("http", rule.getPorts().getFirst().getPort().getStrVal(), name);
            }
            var metrics = rules.getLast();
            assertEquals(monitoring, metrics.getFrom().getFirst().getNamespaceSelector().getMatchLabels(), name);
            switch (name) {
                case "inference", "rubric-prm" -> {
                    assertEquals(2, rules.size(), name);
                    assertEquals(1, rules.getFirst().getFrom().size(), name);
                    assertEquals(runner, rules.getFirst().getFrom().getFirst().getPodSelector(), name);
                }
                case "task-dispatcher" -> {
                    assertEquals(2, rules.size());
                    assertTrue(rules.getFirst().getFrom().isEmpty(), "no from: any source on the HTTP port");
                }
                default -> assertEquals(1, rules.size(), name + ": metrics only");
            }
        }
        var wider = policies(Map.of("networkPolicies.inferenceFrom[0].namespaceSelector.matchLabels.team", "ml"));
        var from = wider.get("alice-rl-inference").getSpec().getIngress().getFirst().getFrom();
        assertEquals(2, from.size());
        assertEquals(Map.of("team", "ml"), from.get(1).getNamespaceSelector().getMatchLabels());
        assertEquals(1, wider.get("alice-rl-rubric-prm").getSpec().getIngress().getFirst().getFrom().size());
        assertEquals(Set.of("alice-rl-sandbox-deny-all"), policies(Map.of("networkPolicies.enabled", "false")).keySet());
    }

    static Map<String, NetworkPolicy> policies(Map<String, Object> sets) {
        return Chart.of(Chart.objects(Chart.render(sets)), NetworkPolicy.class).stream()
                .collect(Collectors.toMap(p -> p.getMetadata().getName(), p -> p));
    }

    @Test
    void nonDefaultValuesPutTheTrainerOnAGpuNodeAndRetagImages() {
        var all = Chart.objects(Chart.render(Map.of("services.trainer.gpu.enabled", "true", "services.trainer.gpu.count", "2",
                "image.tag", "1.2.3", "image.registry", "registry.example.com/ml", "services.verifier.replicas", "1",
                "sandboxes.createNamespace", "false", "artifacts.persistence.existingClaim", "shared-artifacts")));
        var deployments = Chart.of(all, Deployment.class);
        var trainer = deployment(deployments, "trainer").getSpec().getTemplate().getSpec();
        assertEquals(new Quantity("2"), trainer.getContainers().getFirst().getResources().getLimits().get("nvidia.com/gpu"));
        assertEquals("true", trainer.getNodeSelector().get("nvidia.com/gpu.present"));
        assertEquals("nvidia.com/gpu", trainer.getTolerations().getFirst().getKey());
        assertEquals("registry.example.com/ml/alice-rl-trainer:1.2.3", trainer.getContainers().getFirst().getImage());
        assertEquals(Set.of("alice-rl-sandbox-runner"), Chart.of(all, PodDisruptionBudget.class).stream().map(p -> p.getMetadata().getName())
                .collect(Collectors.toSet()), "one verifier replica: no PDB for it");
        assertTrue(Chart.of(all, Namespace.class).isEmpty());
        assertTrue(Chart.of(all, PersistentVolumeClaim.class).isEmpty());
        assertEquals("shared-artifacts", trainer.getVolumes().stream().filter(v -> v.getName().equals("artifacts")).findFirst().orElseThrow()
                .getPersistentVolumeClaim().getClaimName());
    }

    /** A bucket: every service is told where (a ConfigMap), and its keys come from the Secret named, never from the values. */
    @Test
    void aBucketTakesTheArtifactsAndItsKeysComeFromASecret() {
        var all = Chart.objects(Chart.render(Map.of("artifacts.bucket", "s3://alice-artifacts/run-7", "artifacts.s3.endpoint", "http://minio:9000",
                "artifacts.s3.pathStyle", "true", "artifacts.s3.credentialsSecret.name", "alice-s3")));
        var config = Chart.of(all, ConfigMap.class).stream().filter(c -> c.getMetadata().getName().equals("alice-rl-config")).findFirst().orElseThrow();
        assertEquals("s3://alice-artifacts/run-7", config.getData().get("ALICE_ARTIFACTS_BUCKET"));
        assertEquals("http://minio:9000", config.getData().get("ALICE_ARTIFACTS_S3_ENDPOINT"));
        assertEquals("true", config.getData().get("ALICE_ARTIFACTS_S3_PATH_STYLE"));
        for (var d : Chart.of(all, Deployment.class)) {
            var env = d.getSpec().getTemplate().getSpec().getContainers().getFirst().getEnv();
            var key = env.stream().filter(e -> e.getName().equals("ALICE_ARTIFACTS_S3_SECRET_KEY")).findFirst().orElseThrow();
            assertEquals("alice-s3", key.getValueFrom().getSecretKeyRef().getName(), d.getMetadata().getName());
            assertEquals("secret-key", key.getValueFrom().getSecretKeyRef().getKey());
        }
        var none = Chart.objects(Chart.render(Map.of()));
        assertTrue(Chart.of(none, ConfigMap.class).stream().noneMatch(c -> c.getData() != null && c.getData().containsKey("ALICE_ARTIFACTS_BUCKET")));
        var badBucket = assertThrows(RuntimeException.class, () -> Chart.render(Map.of("artifacts.bucket", "alice-artifacts")));
        assertTrue(badBucket.getMessage().contains("artifacts.bucket"), badBucket.getMessage());
    }

    @Test
    void theValuesSchemaRejectsBadValuesNamingThem() {
        var twoTrainers = assertThrows(RuntimeException.class, () -> Chart.render(Map.of("services.trainer.replicas", "2")));
        assertTrue(twoTrainers.getMessage().contains("services.trainer.replicas"), twoTrainers.getMessage());
        var badPolicy = assertThrows(RuntimeException.class, () -> Chart.render(Map.of("image.pullPolicy", "Sometimes")));
        assertTrue(badPolicy.getMessage().contains("image.pullPolicy"), badPolicy.getMessage());
        var badKafka = assertThrows(RuntimeException.class, () -> Chart.render(Map.of("kafka.bootstrapServers", "no-port")));
        assertTrue(badKafka.getMessage().contains("kafka.bootstrapServers"), badKafka.getMessage());
    }

    /**
     * deploy/k8s/alice-rl.yaml is the chart rendered with its defaults (release alice-rl in
     * namespace alice-rl): regenerate with {@code ./mvnw -pl deploy test -Ddeploy.regenerate=true}.
     */
    @Test
    void theGeneratedManifestsAreTheChartsDefaultRender() throws Exception {
        String header = "# Generated from helm/alice-rl with its default values (release alice-rl, namespace alice-rl).\n"
                + "# Do not edit: change the chart, then ./mvnw -pl deploy test -Ddeploy.regenerate=true\n";
        String rendered = header + Chart.render(Map.of());
        if (Boolean.getBoolean("deploy.regenerate")) {
            Files.writeString(MANIFESTS, rendered);
        }
        assertEquals(rendered, Files.readString(MANIFESTS), "deploy/k8s/alice-rl.yaml is out of date: ./mvnw -pl deploy test -Ddeploy.regenerate=true");
    }

    /** Auth on by default: every service verifies with the public key Secret (or a JWKS URL); only the runner gets a token to call with. */
    @Test
    void everyServiceChecksTokensAndOnlyTheRunnerHoldsOne() {
        for (Deployment d : Chart.of(Chart.objects(Chart.render(Map.of())), Deployment.class)) {
            String name = d.getMetadata().getLabels().get("app.kubernetes.io/name");
            var pod = d.getSpec().getTemplate().getSpec();
            Container c = pod.getContainers().getFirst();
            assertEquals("true", env(c, "ALICE_AUTH_ENABLED"), name);
            assertEquals("/etc/alice-rl/auth/public.pem", env(c, "MP_JWT_VERIFY_PUBLICKEY_LOCATION"), name);
            var key = pod.getVolumes().stream().filter(v -> v.getName().equals("auth-public-key")).findFirst().orElseThrow();
            assertEquals("alice-rl-auth", key.getSecret().getSecretName(), name);
            assertEquals("public.pem", key.getSecret().getItems().getFirst().getPath());
            boolean runner = name.equals("sandbox-runner");
            assertEquals(runner ? "/etc/alice-rl/client/token" : null, env(c, "ALICE_AUTH_CLIENT_TOKEN_FILE"), name);
            assertEquals(runner, pod.getVolumes().stream().anyMatch(v -> v.getSecret() != null
                    && v.getSecret().getSecretName().equals("alice-rl-runner-token")), name);
        }
        var jwks = Chart.of(Chart.objects(Chart.render(Map.of("auth.jwksUrl", "https://idp.example/jwks"))), Deployment.class);
        for (Deployment d : jwks) {
            var pod = d.getSpec().getTemplate().getSpec();
            assertEquals("https://idp.example/jwks", env(pod.getContainers().getFirst(), "MP_JWT_VERIFY_PUBLICKEY_LOCATION"));
            assertTrue(pod.getVolumes().stream().noneMatch(v -> v.getName().equals("auth-public-key")));
        }
        for (Deployment d : Chart.of(Chart.objects(Chart.render(Map.of("auth.enabled", "false"))), Deployment.class)) {
            Container c = d.getSpec().getTemplate().getSpec().getContainers().getFirst();
            assertEquals("false", env(c, "ALICE_AUTH_ENABLED"));
            assertEquals(null, env(c, "MP_JWT_VERIFY_PUBLICKEY_LOCATION"));
        }
        assertThrows(Exception.class, () -> Chart.render(Map.of("auth.jwksUrl", "idp.example/jwks")), "a JWKS URL is http(s)");
    }

    /** SASL_SSL: each service logs in with its own KafkaUser's JAAS config (from that user's Secret) and trusts the cluster CA; PLAINTEXT sets nothing. */
    @Test
    void withSaslSslEachServiceLogsInAsItsOwnUser() {
        for (Deployment d : Chart.of(Chart.objects(Chart.render(Map.of())), Deployment.class)) {
            Container c = d.getSpec().getTemplate().getSpec().getContainers().getFirst();
            assertEquals(null, env(c, "KAFKA_SECURITY_PROTOCOL"));
            assertTrue(c.getEnv().stream().noneMatch(e -> e.getName().startsWith("KAFKA_SASL") || e.getName().startsWith("KAFKA_SSL")));
        }
        var all = Chart.of(Chart.objects(Chart.render(Map.of("kafka.securityProtocol", "SASL_SSL"))), Deployment.class);
        assertEquals(SERVICES.size(), all.size());
        for (Deployment d : all) {
            String name = d.getMetadata().getLabels().get("app.kubernetes.io/name");
            var pod = d.getSpec().getTemplate().getSpec();
            Container c = pod.getContainers().getFirst();
            assertEquals("SASL_SSL", env(c, "KAFKA_SECURITY_PROTOCOL"), name);
            assertEquals("SCRAM-SHA-512", env(c, "KAFKA_SASL_MECHANISM"), name);
            var jaas = c.getEnv().stream().filter(e -> e.getName().equals("KAFKA_SASL_JAAS_CONFIG")).findFirst().orElseThrow();
            assertEquals(null, jaas.getValue(), "never a value in the manifest");
            assertEquals("alice-rl-" + name, jaas.getValueFrom().getSecretKeyRef().getName(), "the Secret Strimzi writes for KafkaUser alice-rl-" + name);
            assertEquals("sasl.jaas.config", jaas.getValueFrom().getSecretKeyRef().getKey());
            assertEquals("/etc/alice-rl/kafka-ca/truststore.p12", env(c, "KAFKA_SSL_TRUSTSTORE_LOCATION"), name);
            var ca = pod.getVolumes().stream().filter(v -> v.getName().equals("kafka-ca")).findFirst().orElseThrow();
            assertEquals("alice-rl-kafka-cluster-ca-cert", ca.getSecret().getSecretName());
            assertTrue(c.getVolumeMounts().stream().anyMatch(m -> m.getName().equals("kafka-ca") && m.getReadOnly()), name);
        }
        var plainSasl = Chart.of(Chart.objects(Chart.render(Map.of("kafka.securityProtocol", "SASL_PLAINTEXT"))), Deployment.class).getFirst();
        Container c = plainSasl.getSpec().getTemplate().getSpec().getContainers().getFirst();
        assertEquals("SASL_PLAINTEXT", env(c, "KAFKA_SECURITY_PROTOCOL"));
        assertEquals(null, env(c, "KAFKA_SSL_TRUSTSTORE_LOCATION"));
        assertThrows(Exception.class, () -> Chart.render(Map.of("kafka.securityProtocol", "SASL")), "the schema names the protocols");
    }

    static String env(Container c, String name) {
        return c.getEnv().stream().filter(e -> e.getName().equals(name)).map(e -> e.getValue()).findFirst().orElse(null);
    }

    static Deployment deployment(List<Deployment> all, String name) {
        return all.stream().filter(d -> name.equals(d.getMetadata().getLabels().get("app.kubernetes.io/name"))).findFirst().orElseThrow();
    }

}
