package ai.openalice.rl.inference.service;

import ai.openalice.rl.artifacts.ArtifactStores;
import ai.openalice.rl.events.ArtifactRef;
import ai.openalice.rl.events.CheckpointPublished;
import ai.openalice.rl.inference.config.InferenceConfig;
import ai.openalice.rl.model.checkpoint.Checkpoint;
import ai.openalice.rl.model.checkpoint.Manifest;
import ai.openalice.rl.servicekit.ArtifactsConfig;
import jakarta.annotation.PostConstruct;
import jakarta.annotation.PreDestroy;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.io.IOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.Comparator;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.jboss.logging.Logger;

/**
 * The local folder of an announced checkpoint: the trainer's own when the event names a shared
 * folder ({@code file:}), else a copy fetched from the bucket into {@code inference.checkpoint-cache},
 * every file checked against the sha256 the manifest gives before the folder is put in place.
 */
@ApplicationScoped
public class CheckpointFetch {
    private static final Logger LOG = Logger.getLogger(CheckpointFetch.class);
    private static final Pattern VERSION_DIR = Pattern.compile("v(\\d+)");
    /** Cached versions kept: the one served, the one before it (a load that fails keeps serving it), one more. */
    static final int KEEP = 3;

    @Inject
    ArtifactsConfig artifactsConfig;

    @Inject
    InferenceConfig config;

    private ArtifactStores.Routed store;

    @PostConstruct
    void init() {
        store = ArtifactsConfig.reader(artifactsConfig);
    }

    @PreDestroy
    void close() {
        store.close();
    }

    /** The folder holding checkpoint {@code c}, fetched first when it is in a bucket. */
    public Path folder(CheckpointPublished c) throws IOException {
        URI manifest = URI.create(c.manifest().uri());
        if ("file".equals(manifest.getScheme())) {
            return Path.of(manifest).getParent();
        }
        Path cache = config.checkpointCache();
        Path dir = cache.resolve("v" + c.policyVersion());
        Path partial = cache.resolve("v" + c.policyVersion() + ".fetching");
        long start = System.nanoTime();
        deleteIfThere(partial); // a fetch a crash or a refusal interrupted
        store.copyTo(c.manifest(), partial.resolve(Manifest.FILE_NAME));
        Manifest m = Checkpoint.manifest(partial);
        String base = c.manifest().uri().substring(0, c.manifest().uri().lastIndexOf('/') + 1);
        long bytes = 0;
        for (var f : m.files().entrySet()) {
            store.copyTo(new ArtifactRef(base + f.getKey(), f.getValue().sha256(), f.getValue().bytes()), partial.resolve(f.getKey()));
            bytes += f.getValue().bytes();
        }
        deleteIfThere(dir);
        Files.move(partial, dir, StandardCopyOption.ATOMIC_MOVE);
        LOG.infof("checkpoint v%d fetched from %s: %d file(s), %d bytes in %d ms", c.policyVersion(), base, m.files().size() + 1, bytes,
                (System.nanoTime() - start) / 1_000_000);
        prune(cache);
        return dir;
    }

    private static void deleteIfThere(Path dir) throws IOException {
        if (Files.exists(dir)) {
            Checkpoint.deleteTree(dir);
        }
    }

    /** Keeps the newest {@link #KEEP} versions of the cache. */
    private static void prune(Path cache) {
        try (Stream<Path> dirs = Files.list(cache)) {
            var versions = dirs.filter(d -> VERSION_DIR.matcher(d.getFileName().toString()).matches())
                    .sorted(Comparator.comparingLong((Path d) -> Long.parseLong(d.getFileName().toString().substring(1))).reversed()).toList();
            for (Path old : versions.subList(Math.min(KEEP, versions.size()), versions.size())) {
                Checkpoint.deleteTree(old);
            }
        } catch (IOException | RuntimeException e) {
            LOG.warnf("checkpoint cache %s: %s (tried again at the next checkpoint)", cache, e.getMessage());
        }
    }
}
