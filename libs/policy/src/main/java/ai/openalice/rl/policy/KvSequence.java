package ai.openalice.rl.policy;

/** One sequence's state in an {@link OrtDecoder}: its cache (per layer, K and V as [H, P, hd] row-major) and length. */
public final class KvSequence {
    final float[][] keys;
    final float[][] values;
    final int heads;
    int length;

    KvSequence(int layers, int heads) {
        keys = new float[layers][0];
        values = new float[layers][0];
        this.heads = heads;
    }

    public int length() {
        return length;
    }

    /** A copy of the cache of the first {@code n} positions (the cache must be in Java arrays). */
    KvSequence prefix(int n) {
        var out = new KvSequence(keys.length, heads);
        for (int l = 0; l < keys.length; l++) {
            out.keys[l] = cut(keys[l], n);
            out.values[l] = cut(values[l], n);
        }
        out.length = n;
        return out;
    }

    private float[] cut(float[] src, int n) {
        int hd = src.length / (heads * length);
        float[] dst = new float[heads * n * hd];
        for (int h = 0; h < heads; h++) {
            System.arraycopy(src, h * length * hd, dst, h * n * hd, n * hd);
        }
        return dst;
    }
}
