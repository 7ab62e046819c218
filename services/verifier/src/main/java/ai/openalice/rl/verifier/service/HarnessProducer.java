package ai.openalice.rl.verifier.service;

import ai.openalice.rl.harness.Harness;
import ai.openalice.rl.harness.VerifierOptions;
import ai.openalice.rl.sandbox.local.LocalSandboxConfig;
import ai.openalice.rl.sandbox.local.LocalSandboxProvider;
import ai.openalice.rl.verifier.config.VerifierConfig;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Disposes;
import jakarta.enterprise.inject.Produces;
import jakarta.inject.Singleton;

/** The harness and the local sandbox backend it verifies in, built from {@link VerifierConfig}. */
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
    Harness harness(LocalSandboxProvider sandboxes, VerifierConfig config) {
        var options = VerifierOptions.defaults().withReruns(config.reruns(), config.flakyRule())
                .withMaven(config.mavenRepository().orElse(null), config.mavenHome().orElse(null)).withNpmCache(config.npmCache().orElse(null))
                .withMirrors(config.mirrors().orElse(null));
        return new Harness(sandboxes, options);
    }
}
