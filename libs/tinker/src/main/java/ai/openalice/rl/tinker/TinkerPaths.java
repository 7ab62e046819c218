package ai.openalice.rl.tinker;

/**
 * A {@code tinker://} path as saves answer them: {@code tinker://<model>/<checkpoint>},
 * {@code tinker://<model>/sampler_weights/<checkpoint>} or {@code tinker://<model>/weights/<checkpoint>}.
 */
record TinkerPaths(String model, String kind, String checkpoint) {
    static TinkerPaths parse(String path) {
        if (!path.startsWith("tinker://")) {
            throw new IllegalArgumentException("not a tinker:// path: " + path);
        }
        String[] parts = path.substring("tinker://".length()).split("/");
        if (parts.length == 2 && !parts[0].isEmpty() && !parts[1].isEmpty()) {
            return new TinkerPaths(parts[0], "", parts[1]);
        }
        if (parts.length == 3 && !parts[0].isEmpty() && !parts[2].isEmpty()) {
            return new TinkerPaths(parts[0], parts[1], parts[2]);
        }
        throw new IllegalArgumentException("a tinker:// path names a model and a checkpoint (tinker://model/checkpoint), got " + path);
    }
}
