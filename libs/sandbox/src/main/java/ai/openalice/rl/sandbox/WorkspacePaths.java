package ai.openalice.rl.sandbox;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.InvalidPathException;
import java.nio.file.LinkOption;
import java.nio.file.Path;

/**
 * Confines agent-supplied paths to the workspace: relative paths and absolute paths under the
 * workdir are accepted; {@code ..} escapes, other absolute paths and symlinks resolving outside
 * are refused with a message the agent can act on.
 */
public final class WorkspacePaths {
    private WorkspacePaths() {}

    /** The path relative to the workspace root, normalised; refuses escapes that need no file system. */
    public static Path relative(String workdir, String path) {
        if (path == null || path.isBlank()) {
            throw new PathEscapeException("the path is empty");
        }
        String p = path.strip();
        if (p.startsWith("/")) {
            if (p.equals(workdir) || p.equals(workdir + "/")) {
                p = ".";
            } else if (p.startsWith(workdir + "/")) {
                p = p.substring(workdir.length() + 1);
            } else {
                throw new PathEscapeException(path + " is outside the workspace; use a path under " + workdir + " or a relative one");
            }
        }
        Path rel;
        try {
            rel = Path.of(p).normalize();
        } catch (InvalidPathException e) {
            throw new PathEscapeException(path + " is not a valid path: " + e.getReason());
        }
        if (rel.startsWith("..")) {
            throw new PathEscapeException(path + " leads outside the workspace ('..' above " + workdir + ")");
        }
        return rel;
    }

    /** The host path of {@code path} inside a workspace whose real host root is {@code rootReal}. */
    public static Path resolve(Path rootReal, String workdir, String path, boolean mustExist) {
        Path rel = relative(workdir, path);
        Path cur = rootReal;
        for (Path part : rel) {
            if (part.toString().isEmpty()) {
                continue;
            }
            cur = cur.resolve(part);
            if (!Files.exists(cur, LinkOption.NOFOLLOW_LINKS)) {
                if (mustExist) {
                    throw new SandboxFileException(path + " does not exist");
                }
                return rootReal.resolve(rel);
            }
            if (Files.isSymbolicLink(cur)) {
                Path real;
                try {
                    real = cur.toRealPath();
                } catch (IOException e) {
                    throw new PathEscapeException(path + " goes through a broken symlink (" + rootReal.relativize(cur) + ")");
                }
                if (!real.startsWith(rootReal)) {
                    throw new PathEscapeException(path + " goes through a symlink (" + rootReal.relativize(cur) + ") that points outside the workspace");
                }
                cur = real;
            }
        }
        return cur;
    }
}
