package ai.openalice.rl.servicekit;

import ai.openalice.rl.artifacts.ArtifactStores;
import ai.openalice.rl.artifacts.S3Settings;
import io.smallrye.config.ConfigMapping;
import io.smallrye.config.WithDefault;
import java.net.URI;
import java.nio.file.Path;
import java.util.Optional;

/**
 * Where the services keep their artifacts ({@code alice.artifacts.*}, shared by all): each in its
 * own folder by default (the embedded run, or a volume every pod mounts), or all in one
 * S3-compatible bucket when {@code bucket} is set.
 */
@ConfigMapping(prefix = "alice.artifacts")
public interface ArtifactsConfig {
    /**
     * {@code s3://bucket[/prefix]}: every service writes its artifacts there — trajectories under
     * {@code trajectories/}, test logs under {@code logs/}, copies of the checkpoints under
     * {@code checkpoints/} — rather than to its folder alone.
     */
    Optional<String> bucket();

    S3 s3();

    /** How the bucket's server is reached; used only with {@code bucket}. */
    interface S3 {
        /** The server's URL; empty: AWS S3 itself. */
        Optional<URI> endpoint();

        @WithDefault("us-east-1")
        String region();

        /** {@code http://host/bucket/key} addressing, what most servers other than AWS need. */
        @WithDefault("false")
        boolean pathStyle();

        /** With {@code secret-key}; empty: the AWS SDK's default chain (AWS_ACCESS_KEY_ID/AWS_SECRET_ACCESS_KEY, a profile, the pod's role). */
        Optional<String> accessKey();

        Optional<String> secretKey();
    }

    /** The store a service writes its {@code kind} of artifacts to: {@code <bucket>/<kind>} when a bucket is set, else {@code folder}. */
    static ArtifactStores.Routed open(ArtifactsConfig c, String kind, Path folder) {
        Optional<S3Settings> s3 = c.bucket().map(b -> new S3Settings(c.s3().endpoint(), c.s3().region(), c.s3().pathStyle(), c.s3().accessKey(),
                c.s3().secretKey()));
        String location = c.bucket().map(b -> (b.endsWith("/") ? b : b + "/") + kind).orElse(folder.toString());
        return ArtifactStores.open(location, s3);
    }

    /** A store for reading (and checking) what other services wrote, {@code file:} or, with a bucket, {@code s3:}; it writes nowhere. */
    static ArtifactStores.Routed reader(ArtifactsConfig c) {
        return open(c, "", Path.of("/"));
    }
}
