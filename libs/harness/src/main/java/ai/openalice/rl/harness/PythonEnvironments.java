package ai.openalice.rl.harness;

import ai.openalice.rl.sandbox.HostCommand;
import ai.openalice.rl.sandbox.Submodules;
import ai.openalice.rl.sandbox.WorkspaceSource;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.locks.ReentrantLock;
import java.util.regex.Pattern;

/**
 * Python environments per task version, as SWE-bench's conda environments but without conda: the
 * host's interpreter of the spec's Python (pyenv's builds: {@code versions/X.Y.Z}), copied, with
 * the spec's packages and the repository's dependencies from PyPI ({@code build-python-env.sh}).
 * Built once per distinct spec on the host — where there is network — in a cache folder, and
 * mounted read-only into sandboxes at the same path (pip's scripts name their interpreter by its
 * absolute path). In the sandbox the project installs itself into the user site ({@code /tmp/.local},
 * writable), offline and without build isolation, so nothing a sandbox does reaches the
 * environment a later one reads.
 */
public final class PythonEnvironments {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final System.Logger LOG = System.getLogger(PythonEnvironments.class.getName());
    private static final Pattern XY = Pattern.compile("\\d+\\.\\d+");
    private static final Pattern PROJECT_VERSION = Pattern.compile("\\d+(\\.\\d+){0,3}");
    private static final Duration BUILD_TIMEOUT = Duration.ofMinutes(30);
    private static final int LOG_TAIL = 4000;
    private static final ConcurrentHashMap<Path, ReentrantLock> BUILDING = new ConcurrentHashMap<>();
    /** A build that failed is not tried again for this long (the same spec fails the same way; a network blip is waited out). */
    private static final Duration RETRY_FAILED_AFTER = Duration.ofMinutes(10);
    private static final ConcurrentHashMap<Path, Failure> FAILED = new ConcurrentHashMap<>();

    private record Failure(Unavailable why, long atNanos) {}

    /** An interpreter installation of the host: its prefix and full version (3.9.18). */
    public record Interpreter(Path prefix, String version) {}

    /**
     * A built environment: its folder (mounted at the same path), the interpreter it copies, and the
     * version the project reports when its build reads it from git tags (setuptools-scm), which a
     * task's workspace does not have (null: leave it to the build); {@code workspaceSteps} edit each
     * workspace before anything else; {@code install} (null: none) installs the project from its
     * workspace, as the spec's {@code install} does in SWE-bench's images.
     */
    public record Built(Path home, Interpreter interpreter, String projectVersion, List<String> workspaceSteps, String install) {
        public Built {
            workspaceSteps = List.copyOf(workspaceSteps);
        }

        /** For the verdict: what ran the tests. */
        public String describe() {
            return "python " + interpreter.version() + " environment " + home.getFileName();
        }
    }

    /**
     * The spec's {@code pre_install} steps that edit the repository (all but those installing Debian
     * packages, which the host has): each workspace runs them at its own commit before anything else,
     * as SWE-bench's instance image runs them at the instance's base. Not a diff recorded by the build:
     * the environment is shared by every commit with the same set-up files, whose other files (sphinx's
     * tox.ini) differ, and a recorded diff of one commit does not apply to another.
     */
    static List<String> workspaceSteps(JsonNode spec) {
        var steps = new ArrayList<String>();
        for (JsonNode step : spec.path("pre_install")) {
            if (!step.asText().isBlank() && !step.asText().contains("apt-get")) {
                steps.add(step.asText());
            }
        }
        return steps;
    }

    /** Why a task's environment could not be had: the reason and the build log's tail (empty when nothing was built). */
    public static final class Unavailable extends Exception {
        private final String logTail;

        public Unavailable(String reason, String logTail) {
            super(reason);
            this.logTail = logTail;
        }

        public String logTail() {
            return logTail;
        }
    }

    /** The cache's size bound unless told (about 35 xarray environments). */
    public static final int DEFAULT_MAX_GIB = 40;

    private final Path cache;
    private final List<Path> interpreterRoots;
    private final long maxBytes;

    /** Environments under {@code cache} (readable by sandbox users), interpreters from the folders of {@code interpreterRoots}. */
    public PythonEnvironments(Path cache, List<Path> interpreterRoots) {
        this(cache, interpreterRoots, DEFAULT_MAX_GIB);
    }

    /** As above, the cache kept under {@code maxGib} GiB by removing what was used longest ago (0: no bound; {@link EnvironmentCache}). */
    public PythonEnvironments(Path cache, List<Path> interpreterRoots, int maxGib) {
        if (maxGib < 0) {
            throw new IllegalArgumentException("the Python environment cache's bound must be 0 (none) or more GiB, got " + maxGib);
        }
        this.cache = cache;
        this.interpreterRoots = List.copyOf(interpreterRoots);
        this.maxBytes = maxGib * (1L << 30);
    }

    /** Where environments are cached unless told: a system cache folder for root (sandboxes run under other uids), else the user's. */
    public static Path defaultCache() {
        return "root".equals(System.getProperty("user.name")) ? Path.of("/var/cache/alice-rl/python-envs")
                : Path.of(System.getProperty("user.home"), ".cache", "alice-rl", "python-envs");
    }

    /** pyenv's versions folder of the user running this, the usual home of several Pythons. */
    public static List<Path> defaultRoots() {
        String pyenv = System.getenv("PYENV_ROOT");
        Path root = pyenv != null ? Path.of(pyenv) : Path.of(System.getProperty("user.home"), ".pyenv");
        return List.of(root.resolve("versions"));
    }

    public Path cache() {
        return cache;
    }

    /** The host's interpreters, newest patch release first within a version. */
    public List<Interpreter> interpreters() {
        var out = new ArrayList<Interpreter>();
        for (Path root : interpreterRoots) {
            if (!Files.isDirectory(root)) {
                continue;
            }
            try (var dirs = Files.list(root)) {
                for (Path d : dirs.toList()) {
                    String name = d.getFileName().toString();
                    if (name.matches("\\d+\\.\\d+\\.\\d+") && Files.isExecutable(d.resolve("bin/python" + xy(name)))) {
                        out.add(new Interpreter(d, name));
                    }
                }
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
        out.sort(Comparator.comparing((Interpreter i) -> versionKey(i.version())).reversed());
        return out;
    }

    /** The interpreter for {@code version} (X.Y): that version's newest patch release; empty when the host has none. */
    public Optional<Interpreter> interpreter(String version) {
        return interpreters().stream().filter(i -> xy(i.version()).equals(version)).findFirst();
    }

    /** The repository's files the build reads besides a requirements file the spec names. */
    private static final List<String> SETUP_FILES = List.of("requirements.txt", "pyproject.toml", "setup.py", "setup.cfg");

    /**
     * The environment for {@code spec} (a task's {@code toolchain.python}) and the repository at
     * {@code source}: the cached one, else built now (one build at a time per environment, others
     * wait for it). {@code taskVersion} is the task's (SWE-bench's release series, e.g. 6.0): what the
     * project's version is when its build would read it from git tags; null or not a version: none.
     */
    public Built ensure(JsonNode spec, WorkspaceSource source, String taskVersion) throws Unavailable {
        String projectVersion = taskVersion != null && PROJECT_VERSION.matcher(taskVersion).matches() ? taskVersion : null;
        String version = spec.path("version").asText("");
        if (!XY.matcher(version).matches()) {
            throw new Unavailable("toolchain.python.version must be a Python version like 3.9, got '" + version + "'", "");
        }
        Interpreter interpreter = interpreter(version).orElseThrow(() -> new Unavailable("the task needs Python " + version + "; this host has "
                + interpreters().stream().map(Interpreter::version).toList() + " under " + interpreterRoots + ", not that version", ""));
        Path checkout = null;
        try {
            if (source instanceof WorkspaceSource.Tarball) { // nothing to read it by but unpacking it
                checkout = checkOut(source);
            }
            String setupCommit = SetupFiles.commit(spec, source);
            var blobs = setupBlobs(source, checkout);
            if (setupCommit != null) {
                blobs.putAll(SetupFiles.blobs((WorkspaceSource.Git) source, setupCommit, SetupFiles.of(spec)));
            }
            Path home = cache.resolve(xy(interpreter.version()) + "-" + key(spec, interpreter, blobs));
            // The cached environment needs no checkout: only a build reads the repository.
            if (!Files.exists(home.resolve(".complete"))) {
                Failure failed = FAILED.get(home);
                if (failed != null && System.nanoTime() - failed.atNanos() < RETRY_FAILED_AFTER.toNanos()) {
                    throw failed.why();
                }
                if (checkout == null) {
                    checkout = checkOut(source);
                }
                build(spec, interpreter, checkout, home, projectVersion, setupCommit == null ? null
                        : SetupFiles.checkOut((WorkspaceSource.Git) source, setupCommit, SetupFiles.of(spec), checkout));
                trim(home);
            }
            EnvironmentCache.used(home);
            String install = spec.path("install").asText("").isBlank() ? null : spec.get("install").asText();
            return new Built(home, interpreter, projectVersion, workspaceSteps(spec), install);
        } catch (IOException e) {
            throw new Unavailable("the Python environment could not be prepared: " + e.getMessage(), "");
        } finally {
            if (checkout != null) {
                try {
                    HostCommand.run(List.of("rm", "-rf", checkout.toString(), checkout + ".setup"), null, Duration.ofMinutes(2));
                } catch (IOException ignored) {
                    // a temporary folder left behind
                }
            }
        }
    }

    /** Keeps the cache under its bound after {@code built} was added; a failure to is said, not the verification's. */
    private void trim(Path built) {
        try {
            for (Path removed : EnvironmentCache.trim(cache, maxBytes, built, Instant.now(), h -> BUILDING.computeIfAbsent(h, x -> new ReentrantLock()))) {
                LOG.log(System.Logger.Level.INFO, "removed the Python environment {0}, used longest ago, to keep {1} under {2} GiB",
                        removed.getFileName(), cache, maxBytes >> 30);
            }
        } catch (IOException e) {
            LOG.log(System.Logger.Level.WARNING, "the Python environment cache {0} could not be kept under its bound: {1}", cache, e.getMessage());
        }
    }

    private void build(JsonNode spec, Interpreter interpreter, Path checkout, Path home, String projectVersion, Path setup)
            throws IOException, Unavailable {
        Files.createDirectories(cache);
        // one build per environment: across processes by a file lock, within this one by a monitor
        // (a second FileChannel.lock on the same file in one JVM throws instead of waiting)
        ReentrantLock inProcess = BUILDING.computeIfAbsent(home, h -> new ReentrantLock());
        inProcess.lock();
        try {
            buildLocked(spec, interpreter, checkout, home, projectVersion, setup);
        } finally {
            inProcess.unlock();
        }
    }

    private void buildLocked(JsonNode spec, Interpreter interpreter, Path checkout, Path home, String projectVersion, Path setup)
            throws IOException, Unavailable {
        try (var lock = FileChannel.open(cache.resolve(home.getFileName() + ".lock"), StandardOpenOption.CREATE, StandardOpenOption.WRITE);
                var held = lock.lock()) {
            if (Files.exists(home.resolve(".complete"))) {
                return;
            }
            HostCommand.run(List.of("rm", "-rf", home.toString()), null, Duration.ofMinutes(2));
            Files.createDirectories(home);
            Path script = checkout.resolveSibling(checkout.getFileName() + ".sh");
            Path specFile = checkout.resolveSibling(checkout.getFileName() + ".json");
            Path condaMap = checkout.resolveSibling(checkout.getFileName() + ".conda.json");
            Files.write(script, resource("build-python-env.sh"));
            Files.write(condaMap, resource(CONDA_PACKAGES));
            Files.writeString(specFile, JSON.writeValueAsString(spec));
            try {
                var r = HostCommand.run(List.of("bash", script.toString(), interpreter.prefix().toString(), home.toString(), checkout.toString(),
                        specFile.toString(), projectVersion == null ? "" : projectVersion, setup == null ? "" : setup.toString(), condaMap.toString()),
                        checkout, BUILD_TIMEOUT);
                Files.writeString(home.resolve(".build.log"), r.output());
                if (!r.ok()) {
                    String out = r.output().strip();
                    var why = new Unavailable("the Python " + interpreter.version() + " environment could not be built (exit " + r.exitCode() + ")",
                            out.substring(Math.max(0, out.length() - LOG_TAIL)));
                    FAILED.put(home, new Failure(why, System.nanoTime()));
                    throw why;
                }
                EnvironmentCache.sized(home);
                Files.writeString(home.resolve(".complete"), JSON.writeValueAsString(spec) + "\n");
                FAILED.remove(home);
            } finally {
                Files.deleteIfExists(script);
                Files.deleteIfExists(specFile);
                Files.deleteIfExists(condaMap);
            }
        }
    }

    /** The repository at the task's base, unpacked on the host in a new temporary folder: what its requirements file and install read. */
    private static Path checkOut(WorkspaceSource source) throws IOException, Unavailable {
        Path into = Files.createTempDirectory("alice-rl-python-env");
        switch (source) {
            case WorkspaceSource.Git g -> {
                HostCommand.check(List.of("bash", "-c", "git -C \"$0\" archive \"$1\" | tar -x -C \"$2\"", g.repo().toString(),
                        g.commit(), into.toString()), null, Duration.ofMinutes(5));
                Submodules.fill(g.repo(), g.commit(), into); // as the workspace has them
            }
            case WorkspaceSource.Dir d -> HostCommand.check(List.of("cp", "-a", d.path() + "/.", into.toString()), null, Duration.ofMinutes(5));
            case WorkspaceSource.Tarball t -> HostCommand.check(List.of("tar", "-xf", t.path().toString(), "-C", into.toString()), null, Duration.ofMinutes(5));
            default -> {
                Files.delete(into);
                throw new Unavailable("a Python environment is built from a repository on this host; the task's workspace is " + source, "");
            }
        }
        return into;
    }

    /**
     * Git's blob id of each set-up file the build reads, absent ones left out: for a git workspace
     * read from its tree at the base (one {@code git ls-tree}, no checkout), otherwise hashed from
     * the files as git hashes them, so that both give the same key for the same files.
     */
    static Map<String, String> setupBlobs(WorkspaceSource source, Path checkout) throws IOException {
        var blobs = new TreeMap<String, String>();
        if (source instanceof WorkspaceSource.Git g) {
            var cmd = new ArrayList<>(List.of("git", "-C", g.repo().toString(), "ls-tree", g.commit(), "--"));
            cmd.addAll(SETUP_FILES);
            for (String line : HostCommand.check(cmd, null, Duration.ofMinutes(1)).split("\n")) {
                String[] meta = line.split("\t", 2)[0].split(" ");
                if (meta.length == 3 && meta[1].equals("blob")) {
                    blobs.put(line.split("\t", 2)[1], meta[2]);
                }
            }
            return blobs;
        }
        Path dir = source instanceof WorkspaceSource.Dir d ? d.path() : checkout;
        for (String f : SETUP_FILES) {
            Path p = dir.resolve(f);
            if (Files.isRegularFile(p, LinkOption.NOFOLLOW_LINKS)) {
                blobs.put(f, blobId(Files.readAllBytes(p)));
            }
        }
        return blobs;
    }

    /** How conda package names become PyPI's, for environment.yml specs (the build reads it). */
    static final String CONDA_PACKAGES = "conda-packages.json";

    private static byte[] resource(String name) throws IOException {
        try (InputStream in = PythonEnvironments.class.getResourceAsStream(name)) {
            return in.readAllBytes();
        }
    }

    /** Git's object id of a blob: SHA-1 of {@code "blob <size>\0"} and the bytes. */
    static String blobId(byte[] content) {
        try {
            var sha1 = MessageDigest.getInstance("SHA-1");
            sha1.update(("blob " + content.length + "\0").getBytes(StandardCharsets.US_ASCII));
            return HexFormat.of().formatHex(sha1.digest(content));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    /**
     * What makes two environments the same: the interpreter, the spec, the build script, and what
     * the build reads of the repository (its set-up and build files, by their blob ids).
     */
    private static String key(JsonNode spec, Interpreter interpreter, Map<String, String> setupBlobs) throws IOException {
        try {
            var sha = MessageDigest.getInstance("SHA-256");
            sha.update((interpreter.version() + "\n" + JSON.writeValueAsString(spec) + "\n").getBytes(StandardCharsets.UTF_8));
            sha.update(resource("build-python-env.sh"));
            sha.update(resource(CONDA_PACKAGES));
            sha.update(SetupFiles.RECIPE.getBytes(StandardCharsets.UTF_8));
            for (String f : SETUP_FILES) {
                sha.update((f + " " + setupBlobs.getOrDefault(f, "-") + "\n").getBytes(StandardCharsets.UTF_8));
            }
            for (var e : setupBlobs.entrySet()) { // the requirements or environment files at the setup commit
                if (e.getKey().startsWith(SetupFiles.PREFIX)) {
                    sha.update((e.getKey() + " " + e.getValue() + "\n").getBytes(StandardCharsets.UTF_8));
                }
            }
            return HexFormat.of().formatHex(sha.digest()).substring(0, 16);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    private static String xy(String version) {
        String[] p = version.split("\\.");
        return p[0] + "." + p[1];
    }

    private static String versionKey(String version) {
        var b = new StringBuilder();
        for (String part : version.split("\\.")) {
            b.append(String.format("%05d", Integer.parseInt(part)));
        }
        return b.toString();
    }
}
