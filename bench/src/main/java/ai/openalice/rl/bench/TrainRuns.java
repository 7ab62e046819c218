package ai.openalice.rl.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;

/** What the benchmarks that run {@code ./alice-rl train} share: where the repository is, and a state folder the sandboxes can reach. */
final class TrainRuns {
    private TrainRuns() {}

    /** The repository ({@code -Dalice.root}, default the working folder), which must hold {@code alice-rl}. */
    static Path root() {
        Path root = Path.of(System.getProperty("alice.root", ".")).toAbsolutePath().normalize();
        if (!Files.isExecutable(root.resolve("alice-rl"))) {
            throw new IllegalStateException("run from the repository (or pass -Dalice.root=...): no alice-rl in " + root);
        }
        return root;
    }

    /** A new folder for runs' state: the local sandboxes run as unprivileged uids, so their roots (in the state folders) must be reachable. */
    static Path base(String prefix) throws IOException {
        return Files.createTempDirectory(prefix, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwxr-xr-x")));
    }
}
