package ai.openalice.rl.events;

import java.util.Objects;
import java.util.regex.Pattern;

/** A blob in the artifact store: where it is, its sha256 (lower-case hex) and its size. */
public record ArtifactRef(String uri, String sha256, long bytes) {
    private static final Pattern SHA256 = Pattern.compile("^[0-9a-f]{64}$");

    public ArtifactRef {
        Objects.requireNonNull(uri, "uri");
        if (sha256 == null || !SHA256.matcher(sha256).matches()) {
            throw new IllegalArgumentException("sha256 must be 64 lower-case hex digits, got " + sha256);
        }
        if (bytes < 0) {
            throw new IllegalArgumentException("bytes must be >= 0, got " + bytes);
        }
    }
}
