package ai.openalice.rl.model.checkpoint;

import ai.openalice.rl.model.GptConfig;
import ai.openalice.rl.model.hf.DType;
import ai.openalice.rl.model.hf.HfConfig;
import ai.openalice.rl.model.hf.HfWeights;
import ai.openalice.rl.model.hf.LoraAdapter;
import ai.openalice.rl.model.hf.SafeTensors;
import ai.openalice.rl.model.onnx.GptOnnxExport;
import ai.openalice.rl.model.onnx.HfOnnxExport;
import ai.openalice.rl.model.tokenizer.ByteTokenizer;
import ai.openalice.rl.model.tokenizer.HuggingFaceTokenizer;
import ai.openalice.rl.model.tokenizer.Tokenizer;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.datatype.jsr310.JavaTimeModule;
import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.FileNotFoundException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.security.DigestInputStream;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Instant;
import java.util.Comparator;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Function;
import java.util.regex.Pattern;

/**
 * The checkpoint format: a folder with {@code model.onnx} (+ {@code model.onnx.data} for large
 * models), {@code params.bin} (the DJL parameters), {@code optimizer.bin} (the optimizer's state
 * and step, to resume training) and {@code manifest.json} naming the architecture, tokenizer,
 * version and step and the sha256 of every file. Written to a temporary folder and renamed, so a
 * reader never sees half a checkpoint; loading verifies every sha256.
 */
public final class Checkpoint {
    public static final String ONNX = "model.onnx";
    public static final String PARAMS = "params.bin";
    public static final String OPTIMIZER = "optimizer.bin";
    /** Models above this many weight bytes keep their weights in model.onnx.data. */
    public static final long EXTERNAL_DATA_ABOVE = 512L * 1024 * 1024;
    private static final ObjectMapper JSON = new ObjectMapper().registerModule(new JavaTimeModule())
            .disable(SerializationFeature.WRITE_DATES_AS_TIMESTAMPS).enable(SerializationFeature.INDENT_OUTPUT);

    private Checkpoint() {}

    /** A loaded checkpoint: manifest, parameters and optimizer state by name, optimizer step. */
    public record Loaded(Manifest manifest, Map<String, float[]> params, Map<String, float[]> optimizer, long optimizerStep, Path dir) {
        public Path onnx() {
            return dir.resolve(ONNX);
        }
    }

    /** Writes a checkpoint into {@code dir} (which must not exist yet). */
    public static Manifest save(Path dir, GptConfig config, String tokenizer, long policyVersion, long step, Map<String, float[]> params,
            Map<String, float[]> optimizer, long optimizerStep) {
        return atomically(dir, tmp -> {
            GptOnnxExport.export(config, params, tmp.resolve(ONNX), "v" + policyVersion, externalAbove(4L * config.parameterCount()));
            writeArrays(tmp.resolve(PARAMS), params, -1);
            writeArrays(tmp.resolve(OPTIMIZER), optimizer, optimizerStep);
        }, files -> new Manifest(Manifest.FORMAT, "gpt", config, tokenizer, policyVersion, step, Instant.now(), files, null));
    }

    /** What a checkpoint's files are written by (into the temporary folder). */
    private interface Contents {
        void write(Path tmp) throws IOException;
    }

    /**
     * Writes the files into a temporary folder beside {@code dir}, then the manifest of their sha256
     * and sizes, then renames the folder to {@code dir}: a reader never sees half a checkpoint. A
     * write that fails removes its temporary folder (a full disk must not be kept full by the
     * failures); one a crash left behind is found by {@link #unfinished}.
     */
    private static Manifest atomically(Path dir, Contents contents, Function<Map<String, Manifest.FileEntry>, Manifest> manifestOf) {
        Path tmp = dir.resolveSibling(dir.getFileName() + ".tmp-" + System.nanoTime());
        try {
            Files.createDirectories(tmp);
            contents.write(tmp);
            var files = new TreeMap<String, Manifest.FileEntry>();
            try (var list = Files.list(tmp)) {
                for (Path f : list.toList()) {
                    files.put(f.getFileName().toString(), new Manifest.FileEntry(sha256(f), Files.size(f)));
                }
            }
            Manifest manifest = manifestOf.apply(files);
            JSON.writeValue(tmp.resolve(Manifest.FILE_NAME).toFile(), manifest);
            Files.move(tmp, dir, StandardCopyOption.ATOMIC_MOVE);
            return manifest;
        } catch (IOException | RuntimeException e) {
            try {
                if (Files.exists(tmp)) {
                    deleteTree(tmp);
                }
            } catch (IOException cleanup) {
                e.addSuppressed(cleanup);
            }
            if (e instanceof RuntimeException r) {
                throw r;
            }
            throw new CheckpointException(CheckpointException.Reason.IO, "cannot write checkpoint " + dir + ": " + e.getMessage(), e);
        }
    }

    private static final Pattern UNFINISHED = Pattern.compile("v\\d+\\.tmp-\\d+");

    /** Whether {@code dir} is the temporary folder of a checkpoint whose writing never finished ({@code v<N>.tmp-<nanos>}). */
    public static boolean unfinished(Path dir) {
        return UNFINISHED.matcher(dir.getFileName().toString()).matches() && Files.isDirectory(dir);
    }

    /** Deletes a folder and everything in it. */
    public static void deleteTree(Path dir) throws IOException {
        try (var walk = Files.walk(dir)) {
            for (Path p : walk.sorted(Comparator.reverseOrder()).toList()) {
                Files.delete(p);
            }
        }
    }

    /** The ONNX writer's threshold: models above {@link #EXTERNAL_DATA_ABOVE} weight bytes keep them in model.onnx.data. */
    private static long externalAbove(long weightBytes) {
        return weightBytes > EXTERNAL_DATA_ABOVE ? 0 : Long.MAX_VALUE;
    }

    /** Files of a HuggingFace model folder a checkpoint carries over as they are (those present). */
    static final List<String> HF_SIDECARS = List.of("config.json", "tokenizer.json", "tokenizer_config.json",
            "generation_config.json", "special_tokens_map.json", "chat_template.jinja"); // transformers 5 saves the template beside tokenizer_config.json

    /**
     * Writes a checkpoint of a HuggingFace-family model into {@code dir} (which must not exist yet):
     * {@code model.onnx} of {@code weights} for serving, and the model as HuggingFace tools load it —
     * {@code model.safetensors} in {@code dtype} with the source folder's config and tokenizer files,
     * or, with an {@code adapter}, PEFT's {@code adapter_config.json} and
     * {@code adapter_model.safetensors} (the base stays where the adapter config names it); then
     * {@code optimizer.bin} when there is optimizer state. {@code weights} are the full weights the
     * model computes with (with an adapter: merged).
     */
    public static Manifest saveHf(Path dir, HfConfig config, Path source, Map<String, float[]> weights,
            LoraAdapter adapter, DType dtype, long policyVersion, long step,
            Map<String, float[]> optimizer, long optimizerStep) {
        return saveHf(dir, config, source, weights, adapter, dtype, policyVersion, step, optimizer, optimizerStep, true);
    }

    /**
     * The same; without {@code onnx}, no {@code model.onnx}: a checkpoint only an external serving
     * engine (SGLang, vLLM) serves, which reads the HuggingFace files — the export is the largest
     * file and the slowest part of writing a checkpoint of a large model.
     */
    public static Manifest saveHf(Path dir, HfConfig config, Path source, Map<String, float[]> weights,
            LoraAdapter adapter, DType dtype, long policyVersion, long step,
            Map<String, float[]> optimizer, long optimizerStep, boolean onnx) {
        return saveHf(dir, config, source, weights, adapter, dtype, policyVersion, step, optimizer, optimizerStep, onnx, Map.of());
    }

    /**
     * The same, with {@code extras} (file name to bytes) written beside the model and listed in the
     * manifest: what a learner that keeps its state elsewhere needs to resume (the Tinker learner's
     * reference to the engine's saved state). Without {@code onnx}, {@code weights} are not read.
     */
    public static Manifest saveHf(Path dir, HfConfig config, Path source, Map<String, float[]> weights,
            LoraAdapter adapter, DType dtype, long policyVersion, long step,
            Map<String, float[]> optimizer, long optimizerStep, boolean onnx, Map<String, byte[]> extras) {
        return atomically(dir, tmp -> {
            for (var e : extras.entrySet()) {
                Files.write(tmp.resolve(e.getKey()), e.getValue());
            }
            if (onnx) {
                long weightBytes = 4L * weights.values().stream().mapToLong(w -> w.length).sum();
                HfOnnxExport.export(config, weights, tmp.resolve(ONNX), "v" + policyVersion, externalAbove(weightBytes));
            }
            for (String f : HF_SIDECARS) {
                if (Files.isRegularFile(source.resolve(f))) {
                    Files.copy(source.resolve(f), tmp.resolve(f));
                }
            }
            if (!Files.isRegularFile(tmp.resolve("tokenizer.json"))) {
                throw new CheckpointException(CheckpointException.Reason.INCOMPATIBLE, source + " has no tokenizer.json");
            }
            if (adapter != null) {
                adapter.save(tmp, dtype);
            } else {
                var tensors = new LinkedHashMap<String, SafeTensors.Tensor>();
                config.tensors().forEach((name, shape) -> tensors.put(name, SafeTensors.Tensor.of(dtype, shape, weights.get(name))));
                SafeTensors.write(tmp.resolve(HfWeights.SINGLE), tensors, Map.of("format", "pt"));
            }
            if (!optimizer.isEmpty()) {
                writeArrays(tmp.resolve(OPTIMIZER), optimizer, optimizerStep);
            }
        }, files -> new Manifest(Manifest.FORMAT, "hf-" + config.modelType(), null, Manifest.HF_TOKENIZER, policyVersion, step, Instant.now(), files,
                config));
    }

    /** The tokenizer a checkpoint names: the built-in byte tokenizer, or its own tokenizer.json. */
    public static Tokenizer tokenizer(Path dir, Manifest m) {
        if ("byte-v1".equals(m.tokenizer())) {
            return new ByteTokenizer();
        }
        if (Manifest.HF_TOKENIZER.equals(m.tokenizer())) {
            try {
                return HuggingFaceTokenizer.forModel(dir);
            } catch (IOException | RuntimeException e) {
                throw new CheckpointException(CheckpointException.Reason.CORRUPT, dir + "/tokenizer.json cannot be loaded: " + e.getMessage(), e);
            }
        }
        throw new CheckpointException(CheckpointException.Reason.INCOMPATIBLE, "tokenizer " + m.tokenizer() + " is not supported (byte-v1 and "
                + Manifest.HF_TOKENIZER + " are)");
    }

    /** Reads the manifest and checks that every file it names is present with its sha256. */
    public static Manifest verify(Path dir) {
        Manifest m = manifest(dir);
        for (var f : m.files().entrySet()) {
            Path p = dir.resolve(f.getKey());
            if (!Files.isRegularFile(p)) {
                throw new CheckpointException(CheckpointException.Reason.MISSING, dir + " lacks " + f.getKey());
            }
            try {
                String actual = sha256(p);
                if (!actual.equals(f.getValue().sha256())) {
                    throw new CheckpointException(CheckpointException.Reason.CORRUPT, p + " has sha256 " + actual + ", the manifest says "
                            + f.getValue().sha256());
                }
            } catch (IOException e) {
                throw new CheckpointException(CheckpointException.Reason.IO, "cannot read " + p + ": " + e.getMessage(), e);
            }
        }
        return m;
    }

    /** The manifest of the checkpoint in {@code dir}, read and its format checked (its files are not looked at: {@link #verify}). */
    public static Manifest manifest(Path dir) {
        Manifest m;
        try {
            m = JSON.readValue(dir.resolve(Manifest.FILE_NAME).toFile(), Manifest.class);
        } catch (NoSuchFileException | FileNotFoundException e) {
            throw new CheckpointException(CheckpointException.Reason.MISSING, dir + " has no " + Manifest.FILE_NAME, e);
        } catch (IOException e) {
            throw new CheckpointException(CheckpointException.Reason.CORRUPT, dir + "/" + Manifest.FILE_NAME + " is unreadable: " + e.getMessage(), e);
        }
        if (!Manifest.FORMAT.equals(m.format())) {
            throw new CheckpointException(CheckpointException.Reason.INCOMPATIBLE, dir + " has format " + m.format() + ", expected " + Manifest.FORMAT);
        }
        return m;
    }

    /**
     * Verifies and loads a checkpoint for resuming training. A checkpoint whose manifest names no
     * {@code optimizer.bin} (a model handed on without its optimizer state, as the bundled warm
     * start) loads with none: step 0, fresh moments.
     */
    public static Loaded load(Path dir) {
        return load(dir, verify(dir));
    }

    /** The same for a checkpoint whose manifest {@link #verify} has just returned (its files are not hashed again). */
    public static Loaded load(Path dir, Manifest m) {
        try {
            long[] step = new long[1];
            Map<String, float[]> params = readArrays(dir.resolve(PARAMS), null);
            Map<String, float[]> optimizer = m.files().containsKey(OPTIMIZER) ? readArrays(dir.resolve(OPTIMIZER), step) : Map.of();
            return new Loaded(m, params, optimizer, step[0], dir);
        } catch (IOException e) {
            throw new CheckpointException(CheckpointException.Reason.CORRUPT, "cannot read the arrays of " + dir + ": " + e.getMessage(), e);
        }
    }

    /** A checkpoint's optimizer state and its step ({@code optimizer.bin}); none (step 0) when it has none. */
    public record OptimizerState(Map<String, float[]> arrays, long step) {}

    public static OptimizerState optimizer(Path dir) {
        if (!Files.isRegularFile(dir.resolve(OPTIMIZER))) {
            return new OptimizerState(Map.of(), 0);
        }
        try {
            long[] step = new long[1];
            Map<String, float[]> arrays = readArrays(dir.resolve(OPTIMIZER), step);
            return new OptimizerState(arrays, step[0]);
        } catch (IOException e) {
            throw new CheckpointException(CheckpointException.Reason.CORRUPT, "cannot read " + dir.resolve(OPTIMIZER) + ": " + e.getMessage(), e);
        }
    }

    /** sha256 (hex) of a file. */
    public static String sha256(Path file) throws IOException {
        try (InputStream in = new DigestInputStream(new BufferedInputStream(Files.newInputStream(file)), MessageDigest.getInstance("SHA-256"))) {
            in.transferTo(OutputStream.nullOutputStream());
            return HexFormat.of().formatHex(((DigestInputStream) in).getMessageDigest().digest());
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    private static void writeArrays(Path file, Map<String, float[]> arrays, long step) throws IOException {
        try (var out = new DataOutputStream(new BufferedOutputStream(Files.newOutputStream(file)))) {
            out.writeInt(0x414C4943); // "ALIC"
            out.writeLong(step);
            out.writeInt(arrays.size());
            for (var e : arrays.entrySet()) {
                out.writeUTF(e.getKey());
                out.writeInt(e.getValue().length);
                for (float f : e.getValue()) {
                    out.writeFloat(f);
                }
            }
        }
    }

    private static Map<String, float[]> readArrays(Path file, long[] step) throws IOException {
        try (var in = new DataInputStream(new BufferedInputStream(Files.newInputStream(file)))) {
            if (in.readInt() != 0x414C4943) {
                throw new IOException(file.getFileName() + " is not an alice-rl array file");
            }
            long s = in.readLong();
            if (step != null) {
                step[0] = s;
            }
            int n = in.readInt();
            var out = new LinkedHashMap<String, float[]>();
            for (int i = 0; i < n; i++) {
                String name = in.readUTF();
                float[] v = new float[in.readInt()];
                for (int j = 0; j < v.length; j++) {
                    v[j] = in.readFloat();
                }
                out.put(name, v);
            }
            return out;
        }
    }
}
