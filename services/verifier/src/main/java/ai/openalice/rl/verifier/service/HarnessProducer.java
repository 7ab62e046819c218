package ai.openalice.rl.verifier.service;

import ai.openalice.rl.harness.Harness;
import ai.openalice.rl.harness.PythonEnvironments;
import ai.openalice.rl.harness.SandboxReadable;
import ai.openalice.rl.harness.VerifierOptions;
import ai.openalice.rl.sandbox.OutageWaitingProvider;
import ai.openalice.rl.sandbox.local.LocalSandboxConfig;
import ai.openalice.rl.sandbox.local.LocalSandboxProvider;
import ai.openalice.rl.verifier.config.VerifierConfig;
import io.micrometer.core.instrument.MeterRegistry;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Disposes;
import jakarta.enterprise.inject.Produces;
import jakarta.inject.Singleton;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;

/**
 * The harness and the local sandbox backend it verifies in, built from {@link VerifierConfig}; the
 * back end's outages are waited out for {@code verifier.sandbox-outage-grace}.
 */
@ApplicationScoped
public class HarnessProducer {

    @Produces
    @Singleton
    LocalSandboxProvider sandboxes(VerifierConfig config) {
        return new LocalSandboxProvider(LocalSandboxConfig.defaults().withRoot(config.sandboxRoot()));
    }

    void close(@Disposes LocalSandboxProvider sandboxes) {
        sandboxes.close();
    }

    @Produces
    @Singleton
    Harness harness(LocalSandboxProvider sandboxes, VerifierConfig config, MeterRegistry metrics) {
        var mounted = new LinkedHashMap<String, Path>();
        mounted.put("verifier.mirrors", config.mirrors().orElse(null));
        mounted.put("verifier.maven-repository", config.mavenRepository().orElse(null));
        mounted.put("verifier.maven-home", config.mavenHome().orElse(null));
        mounted.put("verifier.npm-cache", config.npmCache().orElse(null));
        SandboxReadable.requireReadable("verifier", mounted);
        var options = VerifierOptions.defaults().withReruns(config.reruns(), config.flakyRule())
                .withMaven(config.mavenRepository().orElse(null), config.mavenHome().orElse(null)).withNpmCache(config.npmCache().orElse(null))
                .withMirrors(config.mirrors().orElse(null))
                .withPython(new PythonEnvironments(config.pythonEnvs().orElseGet(PythonEnvironments::defaultCache),
                        config.pythonRoots().orElseGet(PythonEnvironments::defaultRoots), config.pythonEnvsMaxGib()));
        var waiting = OutageWaitingProvider.of(sandboxes, config.sandboxOutageGrace());
        metrics.gauge("verifier_sandbox_backend_available", waiting, w -> w.available() ? 1 : 0);
        metrics.more().counter("verifier_sandbox_outage_waits_total", List.of(), waiting, w -> w.waits());
        return new Harness(waiting, options);
    }
}
