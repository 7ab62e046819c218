package ai.openalice.rl.cli;

import java.io.IOException;
import java.lang.reflect.InvocationTargetException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.stream.Collectors;

/**
 * The learner's forward pass for {@code alice-rl model score --engine djl}. The command line does
 * not ship PyTorch (only the trainer does), so it runs {@code ai.openalice.rl.model.djl.Score} on
 * the trainer package's classpath, building that package when it is missing; where the class is on
 * this classpath already (the CLI's own tests), it is called in-process.
 */
final class Djl {
    static final String SCORE = "ai.openalice.rl.model.djl.Score";

    private Djl() {}

    /** A scoring that did not produce log-probs: the reason, and the exit code to give (2: bad input, 3: failure). */
    static final class Failed extends Exception {
        final int exit;

        Failed(String message, int exit) {
            super(message);
            this.exit = exit;
        }
    }

    static double[] score(Path model, Path adapter, int[] tokens) throws Failed, IOException, InterruptedException {
        try {
            Class<?> score = Class.forName(SCORE);
            try {
                return (double[]) score.getMethod("djl", Path.class, Path.class, int[].class).invoke(null, model, adapter, tokens);
            } catch (InvocationTargetException e) {
                if (e.getCause() instanceof IllegalArgumentException bad) {
                    throw new Failed(bad.getMessage(), ModelCommand.BAD_INPUT);
                }
                throw new Failed(String.valueOf(e.getCause()), ModelCommand.FAILED);
            } catch (ReflectiveOperationException e) {
                throw new Failed(e.toString(), ModelCommand.FAILED);
            }
        } catch (ClassNotFoundException notHere) {
            return subprocess(model, adapter, tokens);
        }
    }

    private static double[] subprocess(Path model, Path adapter, int[] tokens) throws Failed, IOException, InterruptedException {
        Path root = Path.of(System.getProperty("alice.root", "."));
        Path lib = root.resolve("services/trainer/target/quarkus-app/lib/main");
        if (!Files.isDirectory(lib)) {
            // dev/build: one progress line, Maven's whole output in the log it names
            var build = new ProcessBuilder(root.resolve("dev/build").toString(), "the trainer's package (it ships PyTorch)",
                    ".alice-rl/build-trainer.log", "-DskipTests", "-pl", "services/trainer", "-am", "package").directory(root.toFile()).inheritIO();
            if (build.start().waitFor() != 0 || !Files.isDirectory(lib)) {
                throw new Failed("the trainer's package could not be built (see above, and .alice-rl/build-trainer.log)", ModelCommand.FAILED);
            }
        }
        List<String> cmd = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-cp", lib + "/*", SCORE,
                model.toAbsolutePath().toString(), adapter == null ? "-" : adapter.toAbsolutePath().toString(),
                Arrays.stream(tokens).mapToObj(Integer::toString).collect(Collectors.joining(","))));
        Path errors = Files.createTempFile("alice-rl-score", ".err");
        try {
            // its stderr (the trainer's logging jars complain outside Quarkus) is shown only when it fails
            Process p = new ProcessBuilder(cmd).redirectError(errors.toFile()).start();
            String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim();
            int code = p.waitFor();
            if (code != 0) {
                List<String> lines = Files.readAllLines(errors);
                String reason = code == 2 && !lines.isEmpty() ? lines.getLast() : "the learner's scoring failed (exit " + code + "):\n" + String.join("\n", lines);
                throw new Failed(reason, code == 2 ? ModelCommand.BAD_INPUT : ModelCommand.FAILED);
            }
            return parse(out);
        } finally {
            Files.deleteIfExists(errors);
        }
    }

    private static double[] parse(String out) {
        String last = out.lines().reduce((a, b) -> b).orElse("");
        return Arrays.stream(last.split(",")).mapToDouble(Double::parseDouble).toArray();
    }
}
