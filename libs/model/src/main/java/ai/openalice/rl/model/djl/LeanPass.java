package ai.openalice.rl.model.djl;

import ai.djl.engine.Engine;
import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDArrays;
import ai.djl.ndarray.NDList;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.NDScope;
import ai.djl.ndarray.index.NDIndex;
import ai.djl.pytorch.jni.JniUtils;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * A micro-batch's log-probabilities, and its loss's gradients, holding what the arithmetic needs
 * rather than the whole pass. One graph of the whole pass ({@link CausalLm#tokenLogprobs}) keeps,
 * for the backward, every layer's attention scores and probabilities (heads × T × T floats each)
 * and the output head's logits and their softmax (T × vocabulary each): more than 22 GB for
 * SmolLM2-135M at 2,048 tokens. Here:
 * <ul>
 * <li>the forward pass runs without a graph, keeping only each layer's input [B, T, D];
 * <li>each layer computes its keys and values once and its queries in blocks of rows, each block
 * over the keys up to its last row, so no T × T matrix is ever whole;
 * <li>the output head runs in blocks of positions: the target's logit by a gather minus the
 * log-sum-exp, never a one-hot or a whole-vocabulary log-softmax;
 * <li>the backward goes from the loss to the head, then layer by layer from the last, each block
 * recomputed from its layer's saved input with a graph of that block alone (activation
 * recomputation): d loss / d input of each layer is handed to the layer below through the
 * surrogate Σ output · gradient, whose gradient is exactly that. Keys and values enter each block
 * as leaves; their gradients, summed over the blocks, go back through one more pass of the key and
 * value projections with a graph.
 * </ul>
 * The parameters' gradients add up across blocks as across micro-batches. The price is one more
 * forward pass per step. DJL has no gradient checkpointing nor fused attention of
 * its own on the PyTorch engine, hence this class.
 */
public final class LeanPass {
    /**
     * Floats in the largest block tensor (an attention block's scores, a head block's logits): 16
     * MB, under glibc's largest threshold for serving an allocation by mmap (32 MB), so blocks reuse
     * freed heap rather than pages the kernel maps and zeroes afresh.
     */
    public static final long DEFAULT_BLOCK_FLOATS = 1L << 22;

    private final CausalLm lm;
    private final long blockFloats;

    public LeanPass(CausalLm lm) {
        this(lm, DEFAULT_BLOCK_FLOATS);
    }

    /** With blocks of at most {@code blockFloats} floats per tensor (at least 16 rows). */
    public LeanPass(CausalLm lm, long blockFloats) {
        this.lm = lm;
        this.blockFloats = blockFloats;
    }

    /** The log-probability and its loss for one micro-batch: values, the backward done. */
    public record Result(float[] logprobs, float loss) {}

    /** log π(target | prefix) [B, T] without a graph: π_old, a score. */
    public NDArray logprobs(NDArray tokens, NDArray targets, float temperature) {
        boolean grad = JniUtils.isGradMode();
        JniUtils.setGradMode(false);
        try {
            NDManager owner = tokens.getManager();
            NDArray h = kept(owner, () -> lm.embed(tokens));
            for (int l = 0; l < lm.depth(); l++) {
                NDArray next = forwardLayer(l, h, owner);
                h.close();
                h = next;
            }
            return forwardHead(h, targets, temperature, owner);
        } finally {
            JniUtils.setGradMode(grad);
        }
    }

    /**
     * Every position's log π and {@code loss}(log π), and the loss's gradient added to every
     * trainable parameter's (as a backward of the whole pass would add it).
     */
    public Result backward(NDArray tokens, NDArray targets, float temperature, Function<NDArray, NDArray> loss) {
        boolean grad = JniUtils.isGradMode();
        JniUtils.setGradMode(false);
        try {
            NDManager owner = tokens.getManager();
            int depth = lm.depth();
            NDArray[] inputs = new NDArray[depth + 1];
            inputs[0] = kept(owner, () -> lm.embed(tokens));
            for (int l = 0; l < depth; l++) {
                inputs[l + 1] = forwardLayer(l, inputs[l], owner);
            }
            NDArray logp = forwardHead(inputs[depth], targets, temperature, owner);
            NDArray leaf = leaf(logp);
            float value;
            try (var gc = Engine.getInstance().newGradientCollector()) {
                NDArray l = loss.apply(leaf);
                gc.backward(l);
                value = l.getFloat();
            }
            NDArray dLogp = leaf.getGradient();
            NDArray g = kept(owner, () -> backHead(inputs[depth], targets, temperature, dLogp));
            for (int l = depth - 1; l >= 0; l--) {
                int layer = l;
                NDArray dOut = g;
                g = kept(owner, () -> backLayer(layer, inputs[layer], dOut, owner)); // the layer's leaves and their gradients freed at once
                dOut.close();
                inputs[l + 1].close();
            }
            if (lm.embeddingsTrain()) {
                try (var scope = new NDScope(); var gc = Engine.getInstance().newGradientCollector()) {
                    scope.suppressNotUsedWarning();
                    gc.backward(lm.embed(tokens).mul(g).sum());
                }
            }
            return new Result(logp.toFloatArray(), value);
        } finally {
            JniUtils.setGradMode(grad);
        }
    }

    /** Layer l's output for the whole of h: its keys and values once, then block of query rows by block. */
    private NDArray forwardLayer(int l, NDArray h, NDManager owner) {
        int t = (int) h.getShape().get(1);
        int rows = rows(h.getShape().get(0) * lm.attentionHeads() * t, t);
        NDList kv = keptList(owner, () -> lm.keysValues(l, h));
        var blocks = new NDList();
        for (int q0 = 0; q0 < t; q0 += rows) {
            int from = q0;
            int to = Math.min(t, q0 + rows);
            blocks.add(kept(owner, () -> lm.layer(l, range(h, from, to), upTo(kv, to), from)));
        }
        kv.close();
        if (blocks.size() == 1) {
            return blocks.get(0);
        }
        NDArray out = kept(owner, () -> NDArrays.concat(blocks, 1));
        blocks.close();
        return out;
    }

    private NDArray forwardHead(NDArray h, NDArray targets, float temperature, NDManager owner) {
        int t = (int) h.getShape().get(1);
        int rows = rows(h.getShape().get(0) * lm.vocabSize(), t);
        var blocks = new NDList();
        for (int r0 = 0; r0 < t; r0 += rows) {
            int r1 = Math.min(t, r0 + rows);
            int from = r0;
            blocks.add(kept(owner, () -> lm.headLogprobs(range(h, from, r1), range(targets, from, r1), temperature)));
        }
        if (blocks.size() == 1) {
            return blocks.get(0);
        }
        NDArray out = kept(owner, () -> NDArrays.concat(blocks, 1));
        blocks.close();
        return out;
    }

    /** d loss / d h for the last layer's output h, given d loss / d log π; the head's parameters' gradients added. */
    private NDArray backHead(NDArray h, NDArray targets, float temperature, NDArray dLogp) {
        NDArray x = leaf(h);
        int t = (int) h.getShape().get(1);
        int rows = rows(h.getShape().get(0) * lm.vocabSize(), t);
        for (int r0 = 0; r0 < t; r0 += rows) {
            int r1 = Math.min(t, r0 + rows);
            try (var scope = new NDScope(); var gc = Engine.getInstance().newGradientCollector()) {
                scope.suppressNotUsedWarning();
                NDArray lp = lm.headLogprobs(range(x, r0, r1), range(targets, r0, r1), temperature);
                gc.backward(lp.mul(range(dLogp, r0, r1)).sum());
            }
        }
        return x.getGradient();
    }

    /**
     * d loss / d h for layer l's input h, given d loss / d its output; the layer's parameters'
     * gradients added. The keys and values enter each block's graph as leaves of their own, computed
     * once without a graph; their gradients, summed over the blocks, go back through one more pass
     * of the keys and values with a graph.
     */
    private NDArray backLayer(int l, NDArray h, NDArray dOut, NDManager owner) {
        NDArray x = leaf(h);
        int t = (int) h.getShape().get(1);
        int rows = rows(h.getShape().get(0) * lm.attentionHeads() * t, t);
        NDList kv = keptList(owner, () -> lm.keysValues(l, h));
        NDArray k = leaf(kv.get(0));
        NDArray v = leaf(kv.get(1));
        kv.close();
        for (int q0 = 0; q0 < t; q0 += rows) {
            int q1 = Math.min(t, q0 + rows);
            try (var scope = new NDScope(); var gc = Engine.getInstance().newGradientCollector()) {
                scope.suppressNotUsedWarning();
                NDArray y = lm.layer(l, range(x, q0, q1), upTo(new NDList(k, v), q1), q0);
                gc.backward(y.mul(range(dOut, q0, q1)).sum());
            }
        }
        try (var scope = new NDScope(); var gc = Engine.getInstance().newGradientCollector()) {
            scope.suppressNotUsedWarning();
            NDList again = lm.keysValues(l, x);
            gc.backward(again.get(0).mul(k.getGradient()).sum().add(again.get(1).mul(v.getGradient()).sum()));
        }
        return x.getGradient();
    }

    /** Rows per block so that a block's tensor of {@code floatsPerRow} floats a row stays within the budget. */
    private int rows(long floatsPerRow, int t) {
        return (int) Math.min(t, Math.max(16, blockFloats / Math.max(1, floatsPerRow)));
    }

    /** A copy of x with no history that gradients collect on. */
    private static NDArray leaf(NDArray x) {
        NDArray leaf = x.duplicate();
        leaf.setRequiresGradient(true);
        return leaf;
    }

    /** The arrays {@code f} makes, computed in a scope of their own (their intermediates freed at once) and owned by {@code owner}. */
    private static NDList keptList(NDManager owner, Supplier<NDList> f) {
        try (var scope = new NDScope()) {
            scope.suppressNotUsedWarning();
            NDList out = f.get();
            NDScope.unregister(out);
            out.attach(owner);
            return out;
        }
    }

    /** {@link #keptList} for one array. */
    private static NDArray kept(NDManager owner, Supplier<NDArray> f) {
        return keptList(owner, () -> new NDList(f.get())).singletonOrThrow();
    }

    /** Keys and values [B, H, k, hd] of positions 0..end−1. */
    private static NDList upTo(NDList kv, int end) {
        if (end == kv.get(0).getShape().get(2)) {
            return kv;
        }
        var index = new NDIndex(":, :, :" + end);
        return new NDList(kv.get(0).get(index), kv.get(1).get(index));
    }

    private static NDArray range(NDArray x, int from, int to) {
        return from == 0 && to == x.getShape().get(1) ? x : x.get(new NDIndex(":, " + from + ":" + to));
    }

    /**
     * log softmax(logits ÷ temperature)[target] [B, n] for logits [B, n, V] and targets [B, n]:
     * the target's logit, gathered, minus the log-sum-exp (shifted by the row's maximum, held
     * constant: the result does not depend on the shift).
     */
    static NDArray targetLogprobs(NDArray logits, NDArray targets, float temperature) {
        NDArray z = temperature == 1f ? logits : Scalars.div(logits, temperature);
        NDArray max = z.max(new int[] {-1}, true).stopGradient();
        NDArray lse = z.sub(max).exp().sum(new int[] {-1}, true).log().add(max);
        return z.gather(targets.expandDims(-1), -1).sub(lse).squeeze(-1);
    }
}
