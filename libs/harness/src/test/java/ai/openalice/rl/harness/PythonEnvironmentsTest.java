package ai.openalice.rl.harness;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ai.openalice.rl.events.TestStatus;
import ai.openalice.rl.events.VerificationStatus;
import ai.openalice.rl.events.task.Task;
import ai.openalice.rl.sandbox.HostCommand;
import ai.openalice.rl.sandbox.SandboxSpec;
import ai.openalice.rl.sandbox.WorkspaceSource;
import ai.openalice.rl.sandbox.local.LocalSandboxProvider;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Executors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * A task version's Python environment built from the host's Python 3.11 and PyPI, as SWE-bench's
 * environment images are: a project whose pyproject names a dependency (iniconfig) and a build
 * backend (flit_core, which Python does not ship), a spec pinning pytest. Its tests then run
 * offline in sandboxes that install the patched project from their workspace: the gold patch
 * resolves, the empty one does not; the environment is built once and cannot be written from a
 * sandbox; a Python the host lacks and a package PyPI lacks are environment verdicts, not rewards.
 */
class PythonEnvironmentsTest {
    static final String CALC = "import iniconfig\n\n\ndef add(a, b):\n    return a - b\n";
    static final String TEST = "from calc import add\n\n\ndef test_add():\n    assert add(2, 3) == 5\n\n\ndef test_iniconfig_is_there():\n"
            + "    import iniconfig\n    assert iniconfig.IniConfig\n";
    static final String PYPROJECT = "[build-system]\nrequires = [\"flit_core>=3.2,<4\"]\nbuild-backend = \"flit_core.buildapi\"\n\n"
            + "[project]\nname = \"calc\"\nversion = \"0.1.0\"\ndescription = \"adds\"\ndependencies = [\"iniconfig==2.0.0\"]\n";

    static Path root;
    static LocalSandboxProvider provider;
    static PythonEnvironments environments;
    static Harness harness;
    static FixtureRepo repo;

    @BeforeAll
    static void setUp() throws Exception {
        root = Files.createTempDirectory(Path.of("/tmp"), "alice-rl-python-envs");
        HostCommand.check(List.of("chmod", "755", root.toString()), null, Duration.ofSeconds(10));
        environments = new PythonEnvironments(root.resolve("envs"), PythonEnvironments.defaultRoots());
        provider = FixtureRepo.sandboxes("python-envs");
        harness = new Harness(provider, VerifierOptions.defaults().withPython(environments));
        repo = FixtureRepo.create(root.resolve("repo"), Map.of("pyproject.toml", PYPROJECT, "calc/__init__.py", CALC));
        HostCommand.check(List.of("chmod", "-R", "a+rX", root.toString()), null, Duration.ofSeconds(10));
    }

    @AfterAll
    static void tearDown() throws Exception {
        provider.close();
        HostCommand.run(List.of("rm", "-rf", root.toString()), null, Duration.ofMinutes(2));
    }

    static Task task(Map<String, Object> python) throws Exception {
        var node = repo.taskFields("fixture__calc-py", "add(2, 3) returns -1");
        node.put("test_patch", repo.patch(Map.of("tests/test_calc.py", TEST)));
        node.put("test_command", "set -uxo pipefail\npython -m pip install -e .\npytest -rA -p no:cacheprovider tests/test_calc.py");
        node.put("test_report", Map.of("format", "log", "parser", "pytest-rA"));
        node.put("FAIL_TO_PASS", List.of("tests/test_calc.py::test_add"));
        node.put("PASS_TO_PASS", List.of("tests/test_calc.py::test_iniconfig_is_there"));
        node.put("toolchain", Map.of("python", python));
        return FixtureRepo.parse(node);
    }

    static Map<String, Object> spec() {
        return Map.of("version", "3.11", "pip_packages", List.of("pytest==8.3.4"), "install", "python -m pip install -e .");
    }

    @Test
    void theGoldPatchResolvesInTheBuiltEnvironmentAndTheEmptyOneDoesNot() throws Exception {
        Task task = task(spec());
        Verdict gold = harness.verify(task, repo.patch(Map.of("calc/__init__.py", CALC.replace("a - b", "a + b"))));
        assertEquals(VerificationStatus.RESOLVED, gold.status(), gold.reason() + "\n" + gold.log());
        assertTrue(gold.toolchain().startsWith("python 3.11."), gold.toolchain());
        var homes = Files.list(root.resolve("envs")).filter(p -> Files.exists(p.resolve(".complete"))).toList();
        assertEquals(1, homes.size(), "one environment built (a failed build of another test leaves none): " + homes);
        Path complete = homes.getFirst().resolve(".complete");
        var built = Files.getLastModifiedTime(complete);

        Verdict empty = harness.verify(task, "");
        assertEquals(VerificationStatus.UNRESOLVED, empty.status(), empty.reason() + "\n" + empty.log());
        assertEquals(TestStatus.FAILED, empty.failToPass().get("tests/test_calc.py::test_add"));
        assertEquals(TestStatus.PASSED, empty.passToPass().get("tests/test_calc.py::test_iniconfig_is_there"), "the dependency came from the environment");
        assertEquals(built, Files.getLastModifiedTime(complete), "the second verification reused the environment");
    }

    @Test
    void aSandboxCannotWriteTheEnvironmentALaterOneReads() throws Exception {
        var built = environments.ensure(task(spec()).pythonToolchain().orElseThrow(),
                new WorkspaceSource.Git(repo.dir, repo.base), null);
        var spec = TestEnvironment.of(null, null, null, null).withPython(built).applyTo(SandboxSpec.of(new WorkspaceSource.Git(repo.dir, repo.base)));
        try (var s = provider.create(spec)) {
            var r = s.exec("touch " + built.home() + "/lib/planted; python -c 'import site; print(site.getsitepackages()[0])' > /tmp/p;"
                    + " touch \"$(cat /tmp/p)/planted.py\"; python -m pip install -q iniconfig==1.1.1; echo exit=$?", Duration.ofMinutes(2));
            assertTrue(r.stdout().contains("exit="), r.stdout() + r.stderr());
        }
        assertTrue(Files.notExists(built.home().resolve("lib/planted")));
        try (var files = Files.walk(built.home().resolve("lib"))) {
            assertTrue(files.noneMatch(p -> p.getFileName().toString().equals("planted.py")), "nothing planted in site-packages");
        }
        var check = HostCommand.run(List.of(built.home() + "/bin/python3.11", "-c", "import iniconfig, importlib.metadata as m; print(m.version('iniconfig'))"),
                null, Duration.ofMinutes(1));
        assertEquals("2.0.0", check.output().strip(), "the environment's own iniconfig is untouched by the sandbox's pip");
    }

    @Test
    void anAgentsWorkspaceHasTheProjectInstalledAsTheImagesHaveIt() throws Exception {
        var built = environments.ensure(task(spec()).pythonToolchain().orElseThrow(), new WorkspaceSource.Git(repo.dir, repo.base), null);
        var env = TestEnvironment.of(null, null, null, null).withPython(built);
        assertEquals("python -m pip install -e .", env.install());
        try (var s = provider.create(env.applyTo(SandboxSpec.of(new WorkspaceSource.Git(repo.dir, repo.base))))) {
            String where = "cd /tmp && python -c 'import calc; print(calc.__file__)'";
            assertFalse(s.exec(where, Duration.ofMinutes(1)).ok(), "not importable from elsewhere before the install");
            assertEquals(null, env.installProject(s));
            var r = s.exec(where, Duration.ofMinutes(1));
            assertEquals(s.workdir() + "/calc/__init__.py", r.stdout().strip(), "editable: the code the agent edits " + r.stderr());
            assertEquals("", s.diff(), "the install leaves nothing in the patch");
        }
        var broken = new TestEnvironment(Map.of(), List.of(), List.of(), "echo no such project; exit 3");
        try (var s = provider.create(SandboxSpec.of(new WorkspaceSource.Git(repo.dir, repo.base)))) {
            assertEquals("exit 3: no such project", broken.installProject(s));
        }
    }

    @Test
    void twoVerificationsAtOnceWaitForOneBuild() throws Exception {
        var fresh = new PythonEnvironments(root.resolve("concurrent"), PythonEnvironments.defaultRoots());
        var spec = task(Map.of("version", "3.11", "pip_packages", List.of("iniconfig==2.0.0"))).pythonToolchain().orElseThrow();
        var source = new WorkspaceSource.Git(repo.dir, repo.base);
        try (var pool = Executors.newFixedThreadPool(2)) {
            var a = pool.submit(() -> fresh.ensure(spec, source, null));
            var b = pool.submit(() -> fresh.ensure(spec, source, null));
            assertEquals(a.get().home(), b.get().home(), "the same environment, built once, neither build refused");
        }
        try (var homes = Files.list(root.resolve("concurrent"))) {
            assertEquals(1, homes.filter(Files::isDirectory).count());
        }
    }

    /**
     * packages_as_of: an unpinned docutils resolves to what PyPI had on 2025-02-04 — 0.21.2 (uploaded
     * 2024-04-23; 0.22 came on 2025-07-29, PyPI's release history) — and the environment keeps pip
     * below 24.1 for the sandboxes' install.
     */
    @Test
    void packagesResolveAsPypiHadThemOnTheDayTheSpecNames() throws Exception {
        var spec = task(Map.of("version", "3.11", "pip_packages", List.of("docutils"), "packages_as_of", "2025-02-04"))
                .pythonToolchain().orElseThrow();
        var dated = new PythonEnvironments(root.resolve("dated"), PythonEnvironments.defaultRoots());
        var built = dated.ensure(spec, new WorkspaceSource.Git(repo.dir, repo.base), null);
        var check = HostCommand.run(List.of(built.home() + "/bin/python3.11", "-c",
                "import importlib.metadata as m; print(m.version('docutils'), m.version('pip'))"), null, Duration.ofMinutes(1));
        String[] versions = check.output().strip().split(" ");
        assertEquals("0.21.2", versions[0], check.output());
        assertTrue(versions[1].startsWith("24.0"), "pip below 24.1 again: " + check.output());
    }

    /**
     * A project with a C extension: the environment's build compiles it through ccache, and a
     * sandbox's install of the same source in another folder reads that (every compile a hit, the
     * extension works) without writing the read-only cache.
     */
    @Test
    void aSandboxInstallReadsWhatTheBuildCompiled() throws Exception {
        var compiled = FixtureRepo.create(root.resolve("compiled-repo"), Map.of(
                "setup.py", "from setuptools import setup, Extension\nsetup(name='speed', version='0.1', ext_modules=[Extension('speed', ['speed.c'])])\n",
                "speed.c", "#include <Python.h>\nstatic PyObject *answer(PyObject *s, PyObject *a) { return PyLong_FromLong(42); }\n"
                        + "static PyMethodDef M[] = {{\"answer\", answer, METH_NOARGS, \"\"}, {0}};\n"
                        + "static struct PyModuleDef D = {PyModuleDef_HEAD_INIT, \"speed\", \"\", -1, M};\n"
                        + "PyMODINIT_FUNC PyInit_speed(void) { return PyModule_Create(&D); }\n"));
        HostCommand.check(List.of("chmod", "-R", "a+rX", compiled.dir.toString()), null, Duration.ofSeconds(10));
        var spec = task(Map.of("version", "3.11", "install", "python -m pip install -e .")).pythonToolchain().orElseThrow();
        var source = new WorkspaceSource.Git(compiled.dir, compiled.base);
        var built = new PythonEnvironments(root.resolve("compiled"), PythonEnvironments.defaultRoots()).ensure(spec, source, null);
        assertTrue(Files.isDirectory(built.home().resolve(TestEnvironment.COMPILER_CACHE)), "the build's compiler cache kept");
        var sandboxSpec = TestEnvironment.of(null, null, null, null).withPython(built).applyTo(SandboxSpec.of(source));
        try (var s = provider.create(sandboxSpec)) {
            var r = s.exec("CCACHE_LOGFILE=/tmp/cc.log python -m pip install -q -e . 2>&1 && python -c 'import speed; print(\"answer\", speed.answer())'",
                    Duration.ofMinutes(3));
            assertTrue(r.stdout().contains("answer 42"), r.stdout() + r.stderr());
            var log = s.exec("grep -o 'Result: .*' /tmp/cc.log | sort | uniq -c", Duration.ofMinutes(1));
            assertTrue(log.stdout().contains("Result: direct_cache_hit") && !log.stdout().contains("miss"),
                    "the compile read the build's result: " + log.stdout() + log.stderr());
        }
    }

    @Test
    void aPythonTheHostLacksIsAnEnvironmentVerdictNamingIt() throws Exception {
        Verdict v = harness.verify(task(Map.of("version", "3.1")), "");
        assertEquals(VerificationStatus.INFRA_ERROR, v.status());
        assertEquals(Verdict.Cause.ENVIRONMENT, v.cause());
        assertTrue(v.reason().contains("Python 3.1;") && v.reason().contains("this host has"), v.reason());
    }

    @Test
    void aPackagePypiLacksIsAnEnvironmentVerdictWithTheBuildLog() throws Exception {
        Verdict v = harness.verify(task(Map.of("version", "3.11", "pip_packages", List.of("alice-rl-no-such-package-4f2a==1.0"))), "");
        assertEquals(VerificationStatus.INFRA_ERROR, v.status());
        assertEquals(Verdict.Cause.ENVIRONMENT, v.cause());
        assertTrue(v.reason().contains("could not be built"), v.reason());
        assertTrue(v.log().contains("alice-rl-no-such-package-4f2a"), v.log());
        assertNotEquals(null, v.reason());
    }
}
