package ai.openalice.rl.model.hf;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Random;

/**
 * A LoRA adapter's weights in PEFT's layout: for each adapted linear layer W [out, in] at module
 * path M, {@code base_model.model.M.lora_A.weight} [r, in] and {@code base_model.model.M.lora_B.weight}
 * [out, r]; the adapted layer computes W·x + s·B·(A·x) with s = {@link LoraConfig#scale()}. Keyed
 * here by module path.
 */
public record LoraAdapter(LoraConfig config, Map<String, float[]> a, Map<String, float[]> b) {
    public static final String WEIGHTS = "adapter_model.safetensors";

    public static String keyA(String module) {
        return "base_model.model." + module + ".lora_A.weight";
    }

    public static String keyB(String module) {
        return "base_model.model." + module + ".lora_B.weight";
    }

    /**
     * A new adapter as PEFT initialises one: A uniform in ±1/√in (Kaiming-uniform with a = √5),
     * B zero — so the adapted model starts equal to the base.
     */
    public static LoraAdapter initialise(LoraConfig config, HfConfig model, long seed) {
        var rnd = new Random(seed);
        var a = new LinkedHashMap<String, float[]>();
        var b = new LinkedHashMap<String, float[]>();
        config.modules(model).forEach((module, shape) -> {
            int out = (int) shape[0];
            int in = (int) shape[1];
            float[] av = new float[config.r() * in];
            double bound = 1 / Math.sqrt(in);
            for (int i = 0; i < av.length; i++) {
                av[i] = (float) ((rnd.nextDouble() * 2 - 1) * bound);
            }
            a.put(module, av);
            b.put(module, new float[out * config.r()]);
        });
        return new LoraAdapter(config, a, b);
    }

    /** Reads an adapter folder for {@code model}, checking every adapted layer's A and B against the model's shapes. */
    public static LoraAdapter load(Path dir, HfConfig model) throws IOException {
        LoraConfig config = LoraConfig.read(dir);
        Path file = dir.resolve(WEIGHTS);
        if (!Files.isRegularFile(file)) {
            throw new HfFormatException(dir + ": no " + WEIGHTS);
        }
        SafeTensors st = SafeTensors.open(file);
        var a = new LinkedHashMap<String, float[]>();
        var b = new LinkedHashMap<String, float[]>();
        for (var e : config.modules(model).entrySet()) {
            String module = e.getKey();
            a.put(module, read(st, keyA(module), new long[] {config.r(), e.getValue()[1]}, dir));
            b.put(module, read(st, keyB(module), new long[] {e.getValue()[0], config.r()}, dir));
        }
        return new LoraAdapter(config, a, b);
    }

    private static float[] read(SafeTensors st, String key, long[] shape, Path dir) throws IOException {
        var entry = st.entries().get(key);
        if (entry == null) {
            throw new HfFormatException(dir + ": tensor " + key + " is missing (expected shape " + Arrays.toString(shape) + ")");
        }
        if (!Arrays.equals(entry.shape(), shape)) {
            throw new HfFormatException(dir + ": tensor " + key + " has shape " + Arrays.toString(entry.shape()) + ", the base model needs "
                    + Arrays.toString(shape) + " (an adapter for another base model?)");
        }
        return st.floats(key);
    }

    /** Writes {@code adapter_config.json} and {@code adapter_model.safetensors} as PEFT does. */
    public void save(Path dir, DType dtype) throws IOException {
        config.write(dir);
        var tensors = new LinkedHashMap<String, SafeTensors.Tensor>();
        for (String module : a.keySet()) {
            int r = config.r();
            int in = a.get(module).length / r;
            int out = b.get(module).length / r;
            tensors.put(keyA(module), SafeTensors.Tensor.of(dtype, new long[] {r, in}, a.get(module)));
            tensors.put(keyB(module), SafeTensors.Tensor.of(dtype, new long[] {out, r}, b.get(module)));
        }
        SafeTensors.write(dir.resolve(WEIGHTS), tensors, Map.of("format", "pt"));
    }

    /** The base weights with every adapted layer merged: W + s·B·A (the others shared, not copied). */
    public Map<String, float[]> merge(Map<String, float[]> base) {
        var out = new LinkedHashMap<>(base);
        int r = config.r();
        double s = config.scale();
        for (String module : a.keySet()) {
            float[] w = base.get(module + ".weight").clone();
            float[] av = a.get(module);
            float[] bv = b.get(module);
            int in = av.length / r;
            int rows = bv.length / r;
            for (int o = 0; o < rows; o++) {
                for (int i = 0; i < in; i++) {
                    double d = 0;
                    for (int k = 0; k < r; k++) {
                        d += (double) bv[o * r + k] * av[k * in + i];
                    }
                    w[o * in + i] += (float) (s * d);
                }
            }
            out.put(module + ".weight", w);
        }
        return out;
    }
}
