package ai.openalice.rl.inference.engine;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeMap;
import java.util.concurrent.locks.ReentrantReadWriteLock;

/**
 * Keeps an external engine serving the trainer's checkpoints, and tells which version produced each
 * completion. An adapter checkpoint is loaded under its own name ({@code alice-v<N>}) beside the
 * last few, so a request pinned to a recent version is answered by exactly that version; a
 * full-weight checkpoint replaces the weights under a write lock that first lets every completion
 * in flight finish — so no completion straddles two versions, and none is labelled with a version
 * before that version's load returned.
 */
public final class EngineGateway {
    private final ServingEngine engine;
    private final int keepAdapters;
    private final ReentrantReadWriteLock lock = new ReentrantReadWriteLock(true);
    /** Loaded versions → adapter name (null: the full weights). */
    private final TreeMap<Long, String> loaded = new TreeMap<>();

    public EngineGateway(ServingEngine engine, int keepAdapters) {
        this.engine = engine;
        this.keepAdapters = Math.max(1, keepAdapters);
    }

    public ServingEngine engine() {
        return engine;
    }

    /** The answer of a completion and the version that produced it. */
    public record Answer(long version, ServingEngine.Completion completion) {}

    /** Loads checkpoint {@code version} from {@code dir}; an older or already loaded version is left alone. Returns what happened. */
    public String load(long version, Path dir) {
        synchronized (loaded) {
            if (!loaded.isEmpty() && version <= loaded.lastKey()) {
                return "v" + version + " is not newer than v" + loaded.lastKey() + ": ignored";
            }
        }
        if (Files.isRegularFile(dir.resolve("adapter_config.json"))) {
            String name = "alice-v" + version;
            engine.loadAdapter(name, dir);
            List<String> retired = new ArrayList<>();
            synchronized (loaded) {
                loaded.put(version, name);
                while (loaded.size() > keepAdapters) {
                    String old = loaded.pollFirstEntry().getValue();
                    if (old != null) {
                        retired.add(old);
                    }
                }
            }
            for (String old : retired) {
                try {
                    engine.unloadAdapter(old);
                } catch (EngineException e) {
                    // an adapter left loaded costs the engine memory, not correctness: it is never asked for again
                }
            }
            return "adapter " + name + " loaded in " + engine.name() + (retired.isEmpty() ? "" : "; unloaded " + retired);
        }
        lock.writeLock().lock(); // waits for the completions in flight on the old weights
        try {
            engine.loadFull(version, dir);
            synchronized (loaded) {
                loaded.clear();
                loaded.put(version, null);
            }
            return "full weights v" + version + " loaded in " + engine.name();
        } finally {
            lock.writeLock().unlock();
        }
    }

    /** A completion at {@code pinned} (null: the newest loaded version). */
    public Answer complete(ServingEngine.Request r, Long pinned) {
        lock.readLock().lock();
        try {
            long version;
            String adapter;
            synchronized (loaded) {
                if (loaded.isEmpty()) {
                    throw new EngineException("no checkpoint is loaded in " + engine.name() + " yet", true);
                }
                version = pinned != null ? pinned : loaded.lastKey();
                if (!loaded.containsKey(version)) {
                    throw new NotLoaded(version, List.copyOf(loaded.keySet()));
                }
                adapter = loaded.get(version);
            }
            return new Answer(version, engine.complete(r, adapter));
        } finally {
            lock.readLock().unlock();
        }
    }

    public List<Long> versions() {
        synchronized (loaded) {
            return List.copyOf(loaded.keySet());
        }
    }

    /** A pinned version the engine does not hold (never loaded, or retired). */
    public static final class NotLoaded extends EngineException {
        public NotLoaded(long version, List<Long> loaded) {
            super("policy version " + version + " is not loaded in the engine (loaded: " + loaded + ")", false);
        }
    }
}
