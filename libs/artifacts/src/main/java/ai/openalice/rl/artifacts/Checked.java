package ai.openalice.rl.artifacts;

import ai.openalice.rl.events.ArtifactRef;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.security.DigestInputStream;
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

    /**
     * Streams {@code in} to {@code target} through a temporary file beside it, moved into place only
     * when its size and sha256 are the ones {@code ref} names (else deleted, and refused).
     */
    static void copy(ArtifactRef ref, InputStream in, Path target) throws IOException {
        Path tmp = temporaryBeside(target);
        try {
            MessageDigest digest = digest();
            long bytes;
            try (var counted = new DigestInputStream(in, digest); OutputStream out = Files.newOutputStream(tmp)) {
                bytes = counted.transferTo(out);
            }
            String sha = HexFormat.of().formatHex(digest.digest());
            if (bytes != ref.bytes()) {
                throw new ArtifactCorruptException(ref.uri() + " has " + bytes + " bytes, its reference says " + ref.bytes());
            }
            if (!sha.equals(ref.sha256())) {
                throw new ArtifactCorruptException(ref.uri() + " has sha256 " + sha + ", its reference says " + ref.sha256());
            }
            moveIntoPlace(tmp, target);
        } catch (IOException | RuntimeException e) {
            Files.deleteIfExists(tmp);
            throw e;
        }
    }

    /** A temporary file in {@code target}'s folder (made when missing), named after it. */
    static Path temporaryBeside(Path target) throws IOException {
        Files.createDirectories(target.toAbsolutePath().getParent());
        return Files.createTempFile(target.toAbsolutePath().getParent(), "." + target.getFileName(), ".tmp");
    }

    /** Atomically where the file system can. */
    static void moveIntoPlace(Path tmp, Path target) throws IOException {
        try {
            Files.move(tmp, target, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        } catch (AtomicMoveNotSupportedException e) {
            Files.move(tmp, target, StandardCopyOption.REPLACE_EXISTING);
        }
    }

    /** Lower-case hex sha256 of a file, streamed. */
    static String sha256(Path file) throws IOException {
        MessageDigest digest = digest();
        try (var in = new DigestInputStream(Files.newInputStream(file), digest)) {
            in.transferTo(OutputStream.nullOutputStream());
        }
        return HexFormat.of().formatHex(digest.digest());
    }

    static String sha256(byte[] bytes) {
        return HexFormat.of().formatHex(digest().digest(bytes));
    }

    private static MessageDigest digest() {
        try {
            return MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("the JDK has no SHA-256", e);
        }
    }
}
