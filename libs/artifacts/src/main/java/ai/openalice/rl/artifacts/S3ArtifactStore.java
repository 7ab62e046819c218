package ai.openalice.rl.artifacts;

import ai.openalice.rl.events.ArtifactRef;
import java.io.IOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.DefaultCredentialsProvider;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.core.checksums.RequestChecksumCalculation;
import software.amazon.awssdk.core.checksums.ResponseChecksumValidation;
import software.amazon.awssdk.core.exception.SdkException;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.http.urlconnection.UrlConnectionHttpClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.NoSuchKeyException;
import software.amazon.awssdk.services.s3.model.ObjectIdentifier;
import software.amazon.awssdk.services.s3.model.S3Object;

/**
 * The artifact store as an S3-compatible bucket, for clusters without a volume every pod mounts.
 * References are {@code s3://bucket/key} URIs. An S3 PUT is atomic by itself — a reader sees the
 * whole object or none — and the sha256 is checked on read as for a folder (the server's own
 * checksums are left to it: servers other than AWS differ in which they take).
 */
public final class S3ArtifactStore implements ArtifactStore, AutoCloseable {
    private final S3Client s3;
    private final String bucket;
    private final String prefix;

    /** Writes under {@code s3://bucket/prefix/}; reads any {@code s3:} reference the credentials reach. */
    public S3ArtifactStore(S3Client s3, String bucket, String prefix) {
        this.s3 = s3;
        this.bucket = bucket;
        this.prefix = prefix.isEmpty() || prefix.endsWith("/") ? prefix : prefix + "/";
    }

    /** A client for {@code settings}: the JDK's HTTP connection, retries and timeouts as the SDK's standard mode. */
    public static S3Client client(S3Settings settings) {
        var b = S3Client.builder()
                .httpClient(UrlConnectionHttpClient.builder().connectionTimeout(Duration.ofSeconds(10)).socketTimeout(Duration.ofSeconds(60)).build())
                .region(Region.of(settings.region()))
                .forcePathStyle(settings.pathStyle())
                .requestChecksumCalculation(RequestChecksumCalculation.WHEN_REQUIRED)
                .responseChecksumValidation(ResponseChecksumValidation.WHEN_REQUIRED);
        settings.endpoint().ifPresent(b::endpointOverride);
        if (settings.accessKey().isPresent()) {
            b.credentialsProvider(StaticCredentialsProvider.create(AwsBasicCredentials.create(settings.accessKey().get(), settings.secretKey().orElseThrow())));
        } else {
            b.credentialsProvider(DefaultCredentialsProvider.builder().build());
        }
        return b.build();
    }

    public String bucket() {
        return bucket;
    }

    @Override
    public ArtifactRef write(String key, byte[] bytes) throws IOException {
        String sha = LocalArtifactStore.sha256(bytes);
        try {
            s3.putObject(r -> r.bucket(bucket).key(object(key)).contentLength((long) bytes.length).metadata(Map.of("sha256", sha)),
                    RequestBody.fromBytes(bytes));
        } catch (SdkException e) {
            throw new IOException("cannot write s3://" + bucket + "/" + object(key) + ": " + e.getMessage(), e);
        }
        return new ArtifactRef("s3://" + bucket + "/" + object(key), sha, bytes.length);
    }

    /** The object key of {@code key}: under the store's prefix; a key leaving it is refused. */
    private String object(String key) {
        if (key.isEmpty() || key.startsWith("/") || key.contains("..")) {
            throw new IllegalArgumentException("an artifact key is a relative path inside the store, got '" + key + "'");
        }
        return prefix + key;
    }

    @Override
    public ArtifactRef write(String key, Path source) throws IOException {
        String sha = Checked.sha256(source);
        long size = Files.size(source);
        try {
            s3.putObject(r -> r.bucket(bucket).key(object(key)).contentLength(size).metadata(Map.of("sha256", sha)), RequestBody.fromFile(source));
        } catch (SdkException e) {
            throw new IOException("cannot write s3://" + bucket + "/" + object(key) + ": " + e.getMessage(), e);
        }
        return new ArtifactRef("s3://" + bucket + "/" + object(key), sha, size);
    }

    @Override
    public ArtifactRef refOf(String key, String sha256, long bytes) {
        return new ArtifactRef("s3://" + bucket + "/" + object(key), sha256, bytes);
    }

    @Override
    public void copyTo(ArtifactRef ref, Path target) throws IOException {
        Location at = location(ref);
        try (var in = s3.getObject(r -> r.bucket(at.bucket()).key(at.key()))) {
            Checked.copy(ref, in, target);
        } catch (NoSuchKeyException e) {
            throw new NoSuchFileException(ref.uri());
        } catch (SdkException e) {
            throw new IOException("cannot read " + ref.uri() + ": " + e.getMessage(), e);
        }
    }

    @Override
    public byte[] read(ArtifactRef ref) throws IOException {
        Location at = location(ref);
        byte[] bytes;
        try {
            bytes = s3.getObjectAsBytes(r -> r.bucket(at.bucket()).key(at.key())).asByteArray();
        } catch (NoSuchKeyException e) {
            throw new NoSuchFileException(ref.uri());
        } catch (SdkException e) {
            throw new IOException("cannot read " + ref.uri() + ": " + e.getMessage(), e);
        }
        return Checked.bytes(ref, bytes);
    }

    @Override
    public boolean exists(ArtifactRef ref) {
        Location at = location(ref);
        try {
            s3.headObject(r -> r.bucket(at.bucket()).key(at.key()));
            return true;
        } catch (NoSuchKeyException e) {
            return false;
        }
    }

    @Override
    public void delete(ArtifactRef ref) throws IOException {
        Location at = location(ref);
        try {
            s3.deleteObject(r -> r.bucket(at.bucket()).key(at.key())); // S3 answers a missing key with success
        } catch (SdkException e) {
            throw new IOException("cannot delete " + ref.uri() + ": " + e.getMessage(), e);
        }
    }

    /** The objects directly under {@code prefix} (not deeper: the delimiter is '/'), deleted a page (at most 1,000) at a time. */
    @Override
    public Pruned prune(String under, Duration keep, Instant now) throws IOException {
        String dir = under.isEmpty() ? prefix : prefix + (under.endsWith("/") ? under : under + "/");
        Instant cutoff = now.minus(keep);
        long artifacts = 0;
        long bytes = 0;
        try {
            for (var page : s3.listObjectsV2Paginator(r -> r.bucket(bucket).prefix(dir).delimiter("/"))) {
                List<ObjectIdentifier> old = new ArrayList<>();
                for (S3Object o : page.contents()) {
                    if (o.lastModified().isBefore(cutoff)) {
                        old.add(ObjectIdentifier.builder().key(o.key()).build());
                        bytes += o.size();
                    }
                }
                if (!old.isEmpty()) {
                    s3.deleteObjects(r -> r.bucket(bucket).delete(d -> d.objects(old).quiet(true)));
                    artifacts += old.size();
                }
            }
        } catch (SdkException e) {
            throw new IOException("cannot prune s3://" + bucket + "/" + dir + ": " + e.getMessage(), e);
        }
        return new Pruned(artifacts, bytes);
    }

    @Override
    public void close() {
        s3.close();
    }

    private record Location(String bucket, String key) {}

    private static Location location(ArtifactRef ref) {
        URI uri = URI.create(ref.uri());
        if (!"s3".equals(uri.getScheme()) || uri.getHost() == null || uri.getPath().length() < 2) {
            throw new IllegalArgumentException("an S3 artifact store reads s3://bucket/key URIs, got " + ref.uri());
        }
        return new Location(uri.getHost(), uri.getPath().substring(1));
    }
}
