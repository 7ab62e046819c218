package ai.openalice.rl.artifacts;

import java.net.URI;
import java.util.Optional;

/**
 * How to reach an S3-compatible server.
 *
 * @param endpoint the server's URL; empty for AWS S3 itself (found from {@code region})
 * @param region the region requests are signed for (S3-protocol servers other than AWS take any)
 * @param pathStyle {@code http://host/bucket/key} rather than {@code http://bucket.host/key}: what most servers other than AWS need
 * @param accessKey with {@code secretKey}, fixed credentials; empty: the SDK's default chain (the
 *     {@code AWS_ACCESS_KEY_ID}/{@code AWS_SECRET_ACCESS_KEY} environment, a profile, the container's
 *     or instance's role)
 */
public record S3Settings(Optional<URI> endpoint, String region, boolean pathStyle, Optional<String> accessKey, Optional<String> secretKey) {
    public S3Settings {
        if (accessKey.isPresent() != secretKey.isPresent()) {
            throw new IllegalArgumentException("an S3 access key and secret key are given together or not at all");
        }
        if (region == null || region.isBlank()) {
            throw new IllegalArgumentException("an S3 region is required (any name for a server other than AWS, e.g. us-east-1)");
        }
    }

    /** AWS S3 in {@code us-east-1} with the default credentials chain. */
    public static S3Settings aws() {
        return new S3Settings(Optional.empty(), "us-east-1", false, Optional.empty(), Optional.empty());
    }
}
