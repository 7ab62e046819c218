package ai.openalice.rl.policy;

import ai.onnxruntime.OnnxTensor;
import ai.onnxruntime.OrtException;
import ai.onnxruntime.OrtSession;
import ai.openalice.rl.model.onnx.CacheLayout;
import java.nio.FloatBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Sequences of one {@link OrtDecoder} decoded together step after step ({@link OrtDecoder#batch}).
 * Between steps the cache stays in ONNX Runtime's tensors: the graph reads a past the batch packed
 * (or last merged) and a recent part, and each step's present — the recent part extended by one
 * position — is the next step's recent part, so a step copies the recent part only. Every
 * {@link OrtDecoder#FOLD} steps the two are merged into a new past. The cache is copied out when
 * the batch changes ({@link #release}). Each member keeps its own left padding. A graph exported
 * before the cache came in two parts reads its past whole and returns it extended, and the batch
 * feeds that back instead.
 */
public final class DecodeBatch implements AutoCloseable {
    private final OrtDecoder decoder;
    private final CacheLayout config;
    private final List<KvSequence> members;
    private final int[] pad;
    /** What the graph reads: past_* (the whole cache, or a split graph's fixed part) and a split graph's recent_*. */
    private final Map<String, OnnxTensor> cache = new HashMap<>();
    /** Tensors the batch made (the packed or merged past, the empty recent part): closed when replaced and at the end. */
    private final List<OnnxTensor> owned = new ArrayList<>();
    private OrtSession.Result held;
    /** Positions in the cache, padding included, and of them those in past_* (all, for a graph that reads its cache whole). */
    private int total;
    private int fixed;

    DecodeBatch(OrtDecoder decoder, List<KvSequence> members) {
        this.decoder = decoder;
        this.config = decoder.config;
        this.members = List.copyOf(members);
        this.pad = new int[members.size()];
        int h = config.kvHeads();
        int hd = config.headDim();
        total = members.stream().mapToInt(KvSequence::length).max().orElse(0);
        for (int i = 0; i < pad.length; i++) {
            pad[i] = total - members.get(i).length;
        }
        float[][] keys = new float[config.layers()][];
        float[][] values = new float[config.layers()][];
        for (int l = 0; l < config.layers(); l++) {
            keys[l] = OrtDecoder.pack(members, l, true, total, h, hd);
            values[l] = OrtDecoder.pack(members, l, false, total, h, hd);
        }
        setPast(keys, values);
    }

    /** past_* from these arrays [B, H, total, hd], and (split graphs) an empty recent part. */
    private void setPast(float[][] keys, float[][] values) {
        long[] shape = {members.size(), config.kvHeads(), total, config.headDim()};
        try {
            for (int l = 0; l < config.layers(); l++) {
                own("past_key_" + l, OnnxTensor.createTensor(OrtDecoder.ENV, FloatBuffer.wrap(keys[l]), shape));
                own("past_value_" + l, OnnxTensor.createTensor(OrtDecoder.ENV, FloatBuffer.wrap(values[l]), shape));
            }
            if (decoder.split) {
                decoder.emptyRecent(members.size()).forEach(this::own);
            }
        } catch (OrtException e) {
            closeOwned();
            throw new PolicyException("ONNX Runtime failed: " + e.getMessage(), e);
        }
        fixed = total;
    }

    private void own(String name, OnnxTensor t) {
        owned.add(t);
        cache.put(name, t);
    }

    public List<KvSequence> members() {
        return members;
    }

    /** One decode step: token i to member i; returns each member's next-token logits. */
    public float[][] step(int[] tokens) {
        int b = members.size();
        long[][] ids = new long[b][1];
        long[][] pos = new long[b][1];
        long[][] mask = new long[b][total + 1];
        for (int i = 0; i < b; i++) {
            ids[i][0] = tokens[i];
            pos[i][0] = total - pad[i];
            Arrays.fill(mask[i], pad[i], total + 1, 1L);
        }
        var in = new HashMap<String, OnnxTensor>(cache);
        var inputs = new ArrayList<OnnxTensor>();
        try {
            inputs.add(OnnxTensor.createTensor(OrtDecoder.ENV, ids));
            inputs.add(OnnxTensor.createTensor(OrtDecoder.ENV, pos));
            inputs.add(OnnxTensor.createTensor(OrtDecoder.ENV, mask));
            in.put("input_ids", inputs.get(0));
            in.put("position_ids", inputs.get(1));
            in.put("attention_mask", inputs.get(2));
            OrtSession.Result r = decoder.session.run(in);
            if (held != null) {
                held.close(); // the last step's present, fed in as this step's recent part (or whole past)
            } else if (!decoder.split) {
                closeOwned(); // the packed past, replaced by this step's present
            }
            held = r;
            String into = decoder.split ? "recent_" : "past_";
            for (int l = 0; l < config.layers(); l++) {
                cache.put(into + "key_" + l, (OnnxTensor) r.get("present_key_" + l).orElseThrow());
                cache.put(into + "value_" + l, (OnnxTensor) r.get("present_value_" + l).orElseThrow());
            }
            total++;
            for (KvSequence q : members) {
                q.length++;
            }
            float[][][] logits = (float[][][]) r.get("logits").orElseThrow().getValue();
            float[][] last = new float[b][];
            for (int i = 0; i < b; i++) {
                last[i] = logits[i][0];
            }
            if (decoder.split && total - fixed >= OrtDecoder.FOLD) {
                fold();
            }
            return last;
        } catch (OrtException e) {
            throw new PolicyException("ONNX Runtime failed: " + e.getMessage(), e);
        } finally {
            inputs.forEach(OnnxTensor::close);
        }
    }

    /** Merges the recent part into the past: one copy of the whole cache every {@link OrtDecoder#FOLD} steps. */
    private void fold() throws OrtException {
        float[][] keys = new float[config.layers()][];
        float[][] values = new float[config.layers()][];
        for (int l = 0; l < config.layers(); l++) {
            keys[l] = joined(l, true);
            values[l] = joined(l, false);
        }
        close();
        setPast(keys, values);
    }

    /** Layer l's cache in one piece, [B, H, total, hd]: past_* followed by recent_* (for split graphs). */
    private float[] joined(int l, boolean keys) throws OrtException {
        String kind = keys ? "key_" : "value_";
        FloatBuffer past = cache.get("past_" + kind + l).getFloatBuffer();
        float[] out = new float[members.size() * config.kvHeads() * total * config.headDim()];
        if (!decoder.split || total == fixed) {
            past.get(out);
            return out;
        }
        FloatBuffer recent = cache.get("recent_" + kind + l).getFloatBuffer();
        int r = total - fixed;
        int hd = config.headDim();
        for (int row = 0; row < members.size() * config.kvHeads(); row++) {
            past.get(out, row * total * hd, fixed * hd);
            recent.get(out, (row * total + fixed) * hd, r * hd);
        }
        return out;
    }

    /** Copies every member's cache back out of the batch (to regroup), and frees the batch. */
    public List<KvSequence> release() {
        int h = config.kvHeads();
        int hd = config.headDim();
        try {
            for (int l = 0; l < config.layers(); l++) {
                OrtDecoder.unpackPadded(members, pad, l, true, joined(l, true), total, h, hd);
                OrtDecoder.unpackPadded(members, pad, l, false, joined(l, false), total, h, hd);
            }
        } catch (OrtException e) {
            throw new PolicyException("ONNX Runtime failed: " + e.getMessage(), e);
        }
        close();
        return members;
    }

    @Override
    public void close() {
        if (held != null) {
            held.close();
            held = null;
        }
        closeOwned();
        cache.clear();
    }

    private void closeOwned() {
        owned.forEach(OnnxTensor::close);
        owned.clear();
    }
}
