package ai.openalice.rl.e2e;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.classes;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.tngtech.archunit.core.domain.JavaCall;
import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.domain.properties.HasName;
import com.tngtech.archunit.core.domain.properties.HasOwner;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The layering the code relies on, checked over every module's compiled classes (the reactor builds
 * them before this module): algorithms and the services' {@code model} packages do no IO, and a
 * library never reaches into a service.
 */
class ArchitectureTest {
    static final Path ROOT = Path.of("..").toAbsolutePath().normalize();
    static final String[] IO = {"java.io..", "java.nio.file..", "java.net..", "java.sql..", "io.vertx..", "org.apache.kafka..", "io.quarkus..",
            "jakarta..", "io.smallrye..", "ai.djl..", "ai.onnxruntime.."};
    static final String[] SERVICES = {"ai.openalice.rl.dispatcher..", "ai.openalice.rl.runner..", "ai.openalice.rl.verifier..",
            "ai.openalice.rl.rubric..", "ai.openalice.rl.trainer..", "ai.openalice.rl.inference.."};

    static JavaClasses classes;

    @BeforeAll
    static void importEveryModule() throws Exception {
        var dirs = new ArrayList<Path>();
        for (String parent : new String[] {"libs", "services"}) {
            try (Stream<Path> modules = Files.list(ROOT.resolve(parent))) {
                modules.map(m -> m.resolve("target/classes")).filter(Files::isDirectory).forEach(dirs::add);
            }
        }
        classes = new ClassFileImporter().withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS).importPaths(dirs);
        // the rules below are only as good as what was imported: a library, a model package and a service at least
        for (String known : new String[] {"ai.openalice.rl.core.filter.CompactFilter", "ai.openalice.rl.dispatcher.model.RolloutState",
                "ai.openalice.rl.trainer.service.TrainingLoop"}) {
            assertTrue(classes.contain(known), known + " was not imported from " + dirs);
        }
    }

    @Test
    void theAlgorithmsAndTheServicesModelsDoNoIo() {
        noClasses().that().resideInAnyPackage("ai.openalice.rl.core..", "ai.openalice.rl.dispatcher.model..", "ai.openalice.rl.prm..",
                        "ai.openalice.rl.retry..")
                .should().dependOnClassesThat().resideInAnyPackage(IO)
                .because("rl-core, retry and the model packages are pure functions over records, tested by hand-worked numbers")
                .check(classes);
    }

    @Test
    void noLibraryImportsAService() {
        noClasses().that().resideInAnyPackage("ai.openalice.rl.core..", "ai.openalice.rl.events..", "ai.openalice.rl.sandbox..",
                        "ai.openalice.rl.harness..", "ai.openalice.rl.model..", "ai.openalice.rl.policy..", "ai.openalice.rl.agent..",
                        "ai.openalice.rl.servicekit..", "ai.openalice.rl.prm..", "ai.openalice.rl.retry..", "ai.openalice.rl.jinja..",
                        "ai.openalice.rl.auth..", "ai.openalice.rl.tinker..", "ai.openalice.rl.artifacts..")
                .should().dependOnClassesThat().resideInAnyPackage(SERVICES)
                .because("libraries are the services' common ground; a service is free to change what the others never see")
                .check(classes);
    }

    /**
     * The dispatcher's statements live in its {@code repository} package: the services around them
     * demarcate transactions ({@code Sql.transaction}) and decide, and what they decide is testable
     * apart from the SQL that records it.
     */
    @Test
    void theDispatchersSqlLivesInItsRepositories() {
        // the calls the rule looks for are there to find, in the repositories
        assertTrue(classes.get("ai.openalice.rl.dispatcher.repository.GroupStore").getMethodCallsFromSelf().stream()
                .anyMatch(c -> c.getTargetOwner().getName().equals("ai.openalice.rl.servicekit.Sql") && c.getName().equals("query")));
        noClasses().that().resideInAPackage("ai.openalice.rl.dispatcher..").and().resideOutsideOfPackage("ai.openalice.rl.dispatcher.repository..")
                .should().callMethodWhere(JavaCall.Predicates.target(
                        HasName.Predicates.nameMatching("query|one|preparedQuery"))
                        .and(JavaCall.Predicates.target(
                                HasOwner.Predicates.With.owner(
                                        JavaClass.Predicates.assignableTo("ai.openalice.rl.servicekit.Sql")
                                                .or(JavaClass.Predicates.assignableTo("io.vertx.mutiny.sqlclient.SqlClient"))))))
                .because("SQL only under repository/ (strimzi's model vs operator split): the scheduling rules stay readable apart from the statements")
                .check(classes);
    }

    /**
     * Repositories record, services decide: a repository takes what to write and never reaches for
     * the terms, the configuration of a decision or the events a service builds.
     */
    @Test
    void repositoriesRecordServicesDecide() {
        assertTrue(classes.contain("ai.openalice.rl.dispatcher.repository.GroupStore"), "the dispatcher was not imported");
        noClasses().that().resideInAPackage("ai.openalice.rl.*.repository..")
                .should().dependOnClassesThat().resideInAPackage("ai.openalice.rl.*.service..")
                .because("what a service decides is testable apart from the SQL that records it")
                .check(classes);
    }

    /**
     * What serves and samples a model (libs/model-core: inference, the runner, rubric-prm and the CLI
     * ship it) never touches a tensor engine, so none of them ships PyTorch; only the learner does.
     */
    @Test
    void theModelsServingSideNeedsNoTensorEngine() {
        var core = new ClassFileImporter().importPath(ROOT.resolve("libs/model-core/target/classes"));
        assertTrue(core.contain("ai.openalice.rl.model.checkpoint.Checkpoint"), "libs/model-core was not built");
        noClasses().should().dependOnClassesThat().resideInAnyPackage("ai.djl.ndarray..", "ai.djl.engine..", "ai.djl.pytorch..", "ai.djl.nn..")
                .because("PyTorch's native jar is for the learner alone (libs/model)")
                .check(core);
    }

    /** The template engine is a library of its own: Java, Jackson and itself, nothing of alice-rl's. */
    @Test
    void theTemplateEngineStandsAlone() {
        assertTrue(classes.contain("ai.openalice.rl.jinja.Template"), "libs/jinja was not built");
        classes().that().resideInAPackage("ai.openalice.rl.jinja..")
                .should().onlyDependOnClassesThat().resideInAnyPackage("ai.openalice.rl.jinja..", "java..", "com.fasterxml.jackson..")
                .because("libs/jinja is Jinja alone; chat layouts (libs/model-core, model.chat) use it, never the other way round")
                .check(classes);
    }

    /** The Tinker client is the protocol alone: what a step means (losses, advantages, batches) stays with rl-core and the trainer. */
    @Test
    void theTinkerClientIsTheProtocolAlone() {
        assertTrue(classes.contain("ai.openalice.rl.tinker.TinkerClient"), "libs/tinker was not built");
        classes().that().resideInAPackage("ai.openalice.rl.tinker..")
                .should().onlyDependOnClassesThat().resideInAnyPackage("ai.openalice.rl.tinker..", "ai.openalice.rl.retry..", "java..",
                        "com.fasterxml.jackson..", "com.google.protobuf..", "org.apache.commons.compress..")
                .because("libs/tinker speaks the Tinker API for whoever trains through it; it decides nothing about training")
                .check(classes);
    }

    /**
     * Each package lives in one jar: a dependency between two modules is then an import line, and a
     * module's classes are found by their package, not by the folder they were built into.
     */
    @Test
    void noPackageSpansTwoJars() throws Exception {
        var homes = new TreeMap<String, Set<String>>();
        for (String parent : new String[] {"libs", "services", "cli", "bench"}) {
            Path p = ROOT.resolve(parent);
            List<Path> modules;
            try (Stream<Path> listed = Files.list(p)) {
                modules = Files.isDirectory(p.resolve("target/classes")) ? List.of(p) : listed.toList();
            }
            for (Path module : modules) {
                Path built = module.resolve("target/classes");
                if (!Files.isDirectory(built)) {
                    continue;
                }
                try (Stream<Path> files = Files.walk(built)) {
                    files.filter(f -> f.toString().endsWith(".class")).map(f -> built.relativize(f.getParent()).toString().replace('/', '.'))
                            .forEach(pkg -> homes.computeIfAbsent(pkg, k -> new TreeSet<>()).add(ROOT.relativize(module).toString()));
                }
            }
        }
        assertTrue(homes.containsKey("ai.openalice.rl.model.djl") && homes.containsKey("ai.openalice.rl.model.hf"), "the modules were not built: " + homes.keySet());
        var split = new TreeMap<String, Set<String>>();
        homes.forEach((pkg, jars) -> {
            if (jars.size() > 1) {
                split.put(pkg, jars);
            }
        });
        assertTrue(split.isEmpty(), "packages in more than one jar: " + split);
    }
}
