package ai.openalice.rl.model.djl;

import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDArrays;
import ai.djl.ndarray.NDList;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.index.NDIndex;
import ai.djl.ndarray.types.Shape;
import ai.openalice.rl.model.checkpoint.Checkpoint;
import ai.openalice.rl.model.checkpoint.Manifest;
import ai.openalice.rl.model.hf.DType;
import ai.openalice.rl.model.hf.HfConfig;
import ai.openalice.rl.model.hf.HfFormatException;
import ai.openalice.rl.model.hf.LoraAdapter;
import ai.openalice.rl.model.hf.LoraConfig;
import ai.openalice.rl.model.hf.Rope;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * A Llama-, Qwen2- or Qwen3-family causal LM ({@link HfConfig}) in DJL NDArray ops on the PyTorch
 * engine, for training: the same arithmetic as {@link ReferenceLm}, batched. Full fine-tuning
 * trains every weight; with a LoRA adapter the base weights are frozen (no gradient, no optimizer
 * state) and only each adapted layer's A and B train, the layer computing W·x + s·B·(A·x).
 * Parameters are named as HuggingFace names them; LoRA's as PEFT does.
 */
public final class HfLm implements CausalLm {
    private final HfConfig config;
    private final NDManager manager;
    private final Map<String, NDArray> weights = new LinkedHashMap<>();
    private final Map<String, NDArray> loraA = new LinkedHashMap<>();
    private final Map<String, NDArray> loraB = new LinkedHashMap<>();
    private final Map<String, NDArray> trainable = new LinkedHashMap<>();
    private final LoraConfig lora;
    private final double[] inv;
    private float[][] ropeTable = {new float[0], new float[0]};
    private Path source;
    private DType dtype = DType.F32;
    private boolean exportOnnx = true;

    private HfLm(HfConfig config, LoraConfig lora) {
        this.config = config;
        this.lora = lora;
        this.manager = NDManager.newBaseManager();
        this.inv = Rope.inverseFrequencies(config.headDim(), config.ropeTheta(), config.ropeScaling());
    }

    /** Full fine-tuning: every weight trains. */
    public static HfLm full(HfConfig config, Map<String, float[]> values) {
        var lm = new HfLm(config, null);
        lm.load(values, true);
        lm.trainable.putAll(lm.weights);
        return lm;
    }

    /** LoRA: the base frozen, the adapter's A and B train. */
    public static HfLm withAdapter(HfConfig config, Map<String, float[]> base, LoraAdapter adapter) {
        var lm = new HfLm(config, adapter.config());
        lm.load(base, false);
        var modules = adapter.config().modules(config);
        for (var e : modules.entrySet()) {
            int r = adapter.config().r();
            NDArray a = lm.manager.create(adapter.a().get(e.getKey()), new Shape(r, e.getValue()[1]));
            NDArray b = lm.manager.create(adapter.b().get(e.getKey()), new Shape(e.getValue()[0], r));
            a.setRequiresGradient(true);
            b.setRequiresGradient(true);
            lm.loraA.put(e.getKey(), a);
            lm.loraB.put(e.getKey(), b);
            lm.trainable.put(LoraAdapter.keyA(e.getKey()), a);
            lm.trainable.put(LoraAdapter.keyB(e.getKey()), b);
        }
        return lm;
    }

    private void load(Map<String, float[]> values, boolean grad) {
        for (var e : config.tensors().entrySet()) {
            float[] v = values.get(e.getKey());
            if (v == null) {
                throw new HfFormatException("tensor " + e.getKey() + " is missing");
            }
            NDArray p = manager.create(v, new Shape(e.getValue()));
            if (grad) {
                p.setRequiresGradient(true);
            }
            weights.put(e.getKey(), p);
        }
    }

    /**
     * The folder the model came from (its config and tokenizer files go into every checkpoint) and
     * the dtype checkpoints write the weights in.
     */
    public HfLm from(Path folder, DType weights) {
        this.source = folder;
        this.dtype = weights;
        return this;
    }

    /** Whether checkpoints carry {@code model.onnx} (the in-process inference service needs it; an external engine does not). */
    public HfLm exportOnnx(boolean export) {
        this.exportOnnx = export;
        return this;
    }

    @Override
    public Manifest save(Path dir, String tokenizer, long policyVersion, long step,
            Map<String, float[]> optimizer, long optimizerStep) {
        if (source == null) {
            throw new IllegalStateException("the model's source folder is not known (HfLm.from): its config and tokenizer files go into the checkpoint");
        }
        Map<String, float[]> base = baseWeights();
        LoraAdapter a = adapter();
        return Checkpoint.saveHf(dir, config, source, a == null ? base : a.merge(base), a, dtype, policyVersion,
                step, optimizer, optimizerStep, exportOnnx);
    }

    public HfConfig config() {
        return config;
    }

    @Override
    public NDManager manager() {
        return manager;
    }

    @Override
    public Map<String, NDArray> parameters() {
        return Collections.unmodifiableMap(trainable);
    }

    @Override
    public int contextLength() {
        return config.maxPositions();
    }

    /** The adapter as trained so far (null for full fine-tuning). */
    public LoraAdapter adapter() {
        if (lora == null) {
            return null;
        }
        var a = new LinkedHashMap<String, float[]>();
        var b = new LinkedHashMap<String, float[]>();
        loraA.forEach((m, x) -> a.put(m, x.toFloatArray()));
        loraB.forEach((m, x) -> b.put(m, x.toFloatArray()));
        return new LoraAdapter(lora, a, b);
    }

    /** The base weights (copies). */
    public Map<String, float[]> baseWeights() {
        var out = new LinkedHashMap<String, float[]>();
        weights.forEach((k, v) -> out.put(k, v.toFloatArray()));
        return out;
    }

    @Override
    public Map<String, float[]> snapshot() {
        var out = new LinkedHashMap<String, float[]>();
        trainable.forEach((k, v) -> out.put(k, v.toFloatArray()));
        return out;
    }

    @Override
    public NDArray logits(NDArray tokens) {
        NDArray h = embed(tokens);
        for (int l = 0; l < config.layers(); l++) {
            h = layer(l, h);
        }
        return rmsNorm(h, weights.get("model.norm.weight")).matMul(head().transpose());
    }

    @Override
    public NDArray embed(NDArray tokens) {
        long t = tokens.getShape().get(1);
        if (t > config.maxPositions()) {
            throw new IllegalArgumentException(t + " tokens exceed max_position_embeddings " + config.maxPositions());
        }
        return weights.get("model.embed_tokens.weight").get(tokens);
    }

    @Override
    public boolean embeddingsTrain() {
        return lora == null;
    }

    @Override
    public int depth() {
        return config.layers();
    }

    @Override
    public int attentionHeads() {
        return config.heads();
    }

    @Override
    public int vocabSize() {
        return config.vocabSize();
    }

    @Override
    public NDList keysValues(int l, NDArray h) {
        String p = "model.layers." + l + ".";
        long b = h.getShape().get(0);
        int k = (int) h.getShape().get(1);
        int hd = config.headDim();
        NDArray x = rmsNorm(h, weights.get(p + "input_layernorm.weight"));
        NDArray kk = linear(x, p + "self_attn.k_proj").reshape(b, k, config.kvHeads(), hd);
        NDArray v = linear(x, p + "self_attn.v_proj").reshape(b, k, config.kvHeads(), hd);
        if (config.qkNorm()) {
            kk = rmsNorm(kk, weights.get(p + "self_attn.k_norm.weight"));
        }
        return new NDList(rotate(kk.transpose(0, 2, 1, 3), rope(h.getManager(), 0, k)), v.transpose(0, 2, 1, 3));
    }

    @Override
    public NDArray layer(int l, NDArray rows, NDList kv, int from) {
        String p = "model.layers." + l + ".";
        NDArray y = rows.add(attention(rmsNorm(rows, weights.get(p + "input_layernorm.weight")), p, kv, from));
        return y.add(mlp(rmsNorm(y, weights.get(p + "post_attention_layernorm.weight")), p));
    }

    @Override
    public NDArray headLogprobs(NDArray h, NDArray targets, float temperature) {
        return LeanPass.targetLogprobs(rmsNorm(h, weights.get("model.norm.weight")).matMul(head().transpose()), targets, temperature);
    }

    private NDArray head() {
        return weights.get(config.tieWordEmbeddings() ? "model.embed_tokens.weight" : "lm_head.weight");
    }

    /** Attention of the normed rows x [B, n, D] at positions from..from+n−1 over keys and values of positions 0..from+n−1. */
    private NDArray attention(NDArray x, String p, NDList kv, int from) {
        long b = x.getShape().get(0);
        int n = (int) x.getShape().get(1);
        int k = from + n;
        int hd = config.headDim();
        NDManager m = x.getManager();
        NDArray q = linear(x, p + "self_attn.q_proj").reshape(b, n, config.heads(), hd);
        if (config.qkNorm()) {
            q = rmsNorm(q, weights.get(p + "self_attn.q_norm.weight"));
        }
        q = rotate(q.transpose(0, 2, 1, 3), rope(m, from, k));
        NDArray kk = kv.get(0);
        NDArray v = kv.get(1);
        int group = config.heads() / config.kvHeads();
        if (group > 1) { // query head h reads KV head h / group
            kk = kk.expandDims(2).broadcast(new Shape(b, config.kvHeads(), group, k, hd)).reshape(b, config.heads(), k, hd);
            v = v.expandDims(2).broadcast(new Shape(b, config.kvHeads(), group, k, hd)).reshape(b, config.heads(), k, hd);
        }
        NDArray att = Scalars.mul(q.matMul(kk.transpose(0, 1, 3, 2)), 1.0 / Math.sqrt(hd)).add(Gpt.causalMask(m, from, k)).softmax(-1);
        NDArray y = att.matMul(v).transpose(0, 2, 1, 3).reshape(b, n, (long) config.qWidth());
        return linear(y, p + "self_attn.o_proj");
    }

    private NDArray mlp(NDArray x, String p) {
        NDArray gate = linear(x, p + "mlp.gate_proj");
        NDArray silu = gate.div(Scalars.add(gate.neg().exp(), 1)); // g · sigmoid(g)
        return linear(silu.mul(linear(x, p + "mlp.up_proj")), p + "mlp.down_proj");
    }

    /** x·Wᵀ (+ bias) (+ s·(x·Aᵀ)·Bᵀ when the layer is adapted). */
    private NDArray linear(NDArray x, String module) {
        NDArray y = x.matMul(weights.get(module + ".weight").transpose());
        NDArray bias = weights.get(module + ".bias");
        if (bias != null) {
            y = y.add(bias);
        }
        NDArray a = loraA.get(module);
        if (a != null) {
            y = y.add(Scalars.mul(x.matMul(a.transpose()).matMul(loraB.get(module).transpose()), lora.scale()));
        }
        return y;
    }

    private NDArray rmsNorm(NDArray x, NDArray weight) {
        NDArray ms = x.mul(x).mean(new int[] {-1}, true);
        return x.div(Scalars.add(ms, config.rmsNormEps()).sqrt()).mul(weight);
    }

    /** cos and sin [k − from, head_dim] of positions from..k−1 in the rotate-half layout (each frequency twice). */
    private NDArray[] rope(NDManager m, int from, int k) {
        float[][] table = ropeTable(k);
        int hd = config.headDim();
        float[] cos = Arrays.copyOfRange(table[0], from * hd, k * hd);
        float[] sin = Arrays.copyOfRange(table[1], from * hd, k * hd);
        return new NDArray[] {Scalars.owned(m, cos, new Shape(k - from, hd)), Scalars.owned(m, sin, new Shape(k - from, hd))};
    }

    /** cos and sin of positions 0..at least t−1, computed once for the longest sequence seen (a pass asks per layer and block). */
    private synchronized float[][] ropeTable(int t) {
        int hd = config.headDim();
        if (ropeTable[0].length < t * hd) {
            float[] cos = new float[t * hd];
            float[] sin = new float[t * hd];
            for (int pos = 0; pos < t; pos++) {
                for (int i = 0; i < hd / 2; i++) {
                    double angle = pos * inv[i];
                    cos[pos * hd + i] = cos[pos * hd + i + hd / 2] = (float) Math.cos(angle);
                    sin[pos * hd + i] = sin[pos * hd + i + hd / 2] = (float) Math.sin(angle);
                }
            }
            ropeTable = new float[][] {cos, sin};
        }
        return ropeTable;
    }

    /** x·cos + rotate_half(x)·sin, rotate_half(x) = [−x₂, x₁] of the halves, for x [B, H, T, head_dim]. */
    private NDArray rotate(NDArray x, NDArray[] rope) {
        int half = config.headDim() / 2;
        NDArray x1 = x.get(new NDIndex("..., :" + half));
        NDArray x2 = x.get(new NDIndex("..., " + half + ":"));
        NDArray rotated = NDArrays.concat(new NDList(x2.neg(), x1), -1);
        return x.mul(rope[0]).add(rotated.mul(rope[1]));
    }

    @Override
    public void close() {
        manager.close();
    }
}
