package ai.openalice.rl.artifacts;

import ai.openalice.rl.events.ArtifactRef;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;

/** What every store does with the bytes it read: hand them out only when they are the ones the reference names. */
final class Checked {
    private Checked() {}

    static byte[] bytes(ArtifactRef ref, byte[] bytes) throws ArtifactCorruptException {
        if (bytes.length != ref.bytes()) {
            throw new ArtifactCorruptException(ref.uri() + " has " + bytes.length + " bytes, its reference says " + ref.bytes());
        }
        String sha = sha256(bytes);
        if (!sha.equals(ref.sha256())) {
            throw new ArtifactCorruptException(ref.uri() + " has sha256 " + sha + ", its reference says " + ref.sha256());
        }
        return bytes;
    }

    static String sha256(byte[] bytes) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(bytes));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("the JDK has no SHA-256", e);
        }
    }
}
