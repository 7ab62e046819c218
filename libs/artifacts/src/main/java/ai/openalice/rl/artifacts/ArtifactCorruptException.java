package ai.openalice.rl.artifacts;

import java.io.IOException;

/** An artifact whose bytes are not the ones its reference was written with: another size or another sha256. */
public final class ArtifactCorruptException extends IOException {
    public ArtifactCorruptException(String message) {
        super(message);
    }
}
