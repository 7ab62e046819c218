package ai.openalice.rl.artifacts;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ai.openalice.rl.events.ArtifactRef;
import ai.openalice.rl.testkit.TestStack;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.services.s3.S3Client;

/**
 * Against a real S3-protocol server: S3Proxy, started by {@code dev/stack start} (its endpoint and
 * keys reach the tests as {@code alice.s3.*} from {@code dev/test}). Each run makes its own bucket.
 */
class S3ArtifactStoreTest {
    static final byte[] ABC = "abc".getBytes(StandardCharsets.US_ASCII);

    static S3Settings settings;
    static S3Client client;
    static String bucket;

    @BeforeAll
    static void bucket() {
        settings = new S3Settings(Optional.of(URI.create(TestStack.s3Endpoint())), "us-east-1", true, Optional.of(TestStack.s3AccessKey()),
                Optional.of(TestStack.s3SecretKey()));
        client = S3ArtifactStore.client(settings);
        bucket = "alice-test-" + UUID.randomUUID().toString().substring(0, 8);
        try {
            client.createBucket(r -> r.bucket(bucket));
        } catch (RuntimeException e) {
            throw new IllegalStateException("no S3-protocol server at " + settings.endpoint().orElseThrow() + " (start it: dev/stack start): " + e.getMessage(), e);
        }
    }

    @AfterAll
    static void close() {
        client.close();
    }

    @Test
    void writesAnS3UriWithTheSha256AndSizeOfItsBytesAndReadsThemBack() throws Exception {
        var store = new S3ArtifactStore(client, bucket, "run-1");
        ArtifactRef ref = store.write("trajectories/r1.json", ABC);
        assertEquals(new ArtifactRef("s3://" + bucket + "/run-1/trajectories/r1.json", LocalArtifactStoreTest.SHA256_ABC, 3), ref);
        assertTrue(store.exists(ref));
        assertArrayEquals(ABC, store.read(ref));
        assertArrayEquals(ABC, new S3ArtifactStore(client, bucket, "elsewhere/").read(ref), "a store writing elsewhere reads any reference");
        assertArrayEquals(ABC, client.getObjectAsBytes(r -> r.bucket(bucket).key("run-1/trajectories/r1.json")).asByteArray(), "a plain S3 object");
    }

    @Test
    void anObjectReplacedOrGoneIsRefusedNotRead() throws Exception {
        var store = new S3ArtifactStore(client, bucket, "");
        ArtifactRef ref = store.write("t/r2.json", ABC);
        client.putObject(r -> r.bucket(bucket).key("t/r2.json"), RequestBody.fromString("abd"));
        var e = assertThrows(ArtifactCorruptException.class, () -> store.read(ref));
        assertTrue(e.getMessage().contains("sha256"), e.getMessage());
        client.putObject(r -> r.bucket(bucket).key("t/r2.json"), RequestBody.fromString("ab"));
        assertTrue(assertThrows(ArtifactCorruptException.class, () -> store.read(ref)).getMessage().contains("has 2 bytes"));
        store.delete(ref);
        assertFalse(store.exists(ref));
        assertThrows(NoSuchFileException.class, () -> store.read(ref));
        store.delete(ref); // already gone: nothing
    }

    /** Objects directly under the prefix written before now - keep go; deeper ones and newer ones stay. */
    @Test
    void prunesByAgeDirectlyUnderAPrefix() throws Exception {
        var store = new S3ArtifactStore(client, bucket, "prune");
        ArtifactRef a = store.write("t/a.json", new byte[1000]);
        ArtifactRef b = store.write("t/b.json", new byte[24]);
        ArtifactRef deep = store.write("t/sub/c.json", new byte[5]);
        ArtifactRef other = store.write("u/d.json", new byte[5]);
        assertEquals(new ArtifactStore.Pruned(0, 0), store.prune("t", Duration.ofDays(7), Instant.now()), "written just now: kept");
        assertEquals(new ArtifactStore.Pruned(2, 1024), store.prune("t", Duration.ofDays(7), Instant.now().plus(Duration.ofDays(8))));
        assertFalse(store.exists(a) || store.exists(b));
        assertTrue(store.exists(deep) && store.exists(other));
    }

    @Test
    void aServiceWritesToItsBucketAndReadsWhatAFolderHolds(@TempDir Path dir) throws Exception {
        ArtifactRef local = new LocalArtifactStore(dir).write("r.json", ABC);
        try (var store = ArtifactStores.open("s3://" + bucket + "/svc", Optional.of(settings))) {
            ArtifactRef remote = store.write("r.json", ABC);
            assertEquals("s3://" + bucket + "/svc/r.json", remote.uri());
            assertEquals(Optional.empty(), store.folder());
            assertArrayEquals(ABC, store.read(remote));
            assertArrayEquals(ABC, store.read(local));
        }
        try (var folder = ArtifactStores.open(dir.toString(), Optional.empty())) {
            assertEquals(Optional.of(dir.toAbsolutePath()), folder.folder());
            var e = assertThrows(IllegalStateException.class, () -> folder.exists(new ArtifactRef("s3://" + bucket + "/svc/r.json", LocalArtifactStoreTest.SHA256_ABC, 3)));
            assertTrue(e.getMessage().contains("no S3 settings"), e.getMessage());
        }
        assertThrows(IllegalArgumentException.class, () -> ArtifactStores.open("s3://" + bucket, Optional.empty()));
    }

    @Test
    void filesGoInAndOutStreamedAndCheckedAlike(@TempDir Path dir) throws Exception {
        var store = new S3ArtifactStore(client, bucket, "files");
        Path source = Files.writeString(dir.resolve("weights.bin"), "abc");
        ArtifactRef ref = store.write("checkpoints/v1/weights.bin", source);
        assertEquals(new ArtifactRef("s3://" + bucket + "/files/checkpoints/v1/weights.bin", LocalArtifactStoreTest.SHA256_ABC, 3), ref);
        Path target = dir.resolve("cache/v1/weights.bin");
        store.copyTo(ref, target);
        assertEquals("abc", Files.readString(target));
        client.putObject(r -> r.bucket(bucket).key("files/checkpoints/v1/weights.bin"), RequestBody.fromString("abd"));
        assertThrows(ArtifactCorruptException.class, () -> store.copyTo(ref, target));
        assertEquals("abc", Files.readString(target), "the earlier copy is kept");
        assertEquals(new ArtifactStore.Pruned(1, 3), store.deleteAll("checkpoints/v1"));
        assertThrows(NoSuchFileException.class, () -> store.copyTo(ref, target));
    }
}
