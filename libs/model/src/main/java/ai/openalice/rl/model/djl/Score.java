package ai.openalice.rl.model.djl;

import ai.djl.ndarray.types.Shape;
import ai.openalice.rl.model.hf.HfConfig;
import ai.openalice.rl.model.hf.HfModel;
import ai.openalice.rl.model.hf.LoraAdapter;
import java.io.IOException;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Map;

/**
 * The learner's forward pass on a HuggingFace model folder (with an optional LoRA adapter):
 * {@code logprobs[i] = log p(tokens[i+1] | tokens[0..i])}. Run as a program by
 * {@code alice-rl model score --engine djl} on the trainer's classpath (the only one that ships
 * PyTorch): {@code Score MODEL_DIR ADAPTER_DIR|- ID,ID,...} prints the log-probs, comma-separated.
 */
public final class Score {
    private Score() {}

    public static double[] djl(Path modelDir, Path adapterDir, int[] tokens) throws IOException {
        if (tokens.length < 2) {
            throw new IllegalArgumentException("--tokens: at least two ids are needed (log-probs are of each token after the first)");
        }
        HfModel model = HfModel.load(modelDir);
        HfConfig c = model.config();
        c.checkTokens("--tokens", tokens);
        Map<String, float[]> weights = model.floats();
        long[] in = new long[tokens.length - 1];
        long[] target = new long[tokens.length - 1];
        for (int i = 0; i < in.length; i++) {
            in[i] = tokens[i];
            target[i] = tokens[i + 1];
        }
        try (HfLm lm = adapterDir == null ? HfLm.full(c, weights) : HfLm.withAdapter(c, weights, LoraAdapter.load(adapterDir, c));
                var sub = lm.manager().newSubManager()) {
            float[] lp = new LeanPass(lm).logprobs(sub.create(in, new Shape(1, in.length)), sub.create(target, new Shape(1, in.length)), 1f).toFloatArray();
            double[] out = new double[lp.length];
            for (int i = 0; i < lp.length; i++) {
                out[i] = lp[i];
            }
            return out;
        }
    }

    public static void main(String[] args) {
        try {
            int[] tokens = Arrays.stream(args[2].split(",")).map(String::trim).mapToInt(Integer::parseInt).toArray();
            double[] lp = djl(Path.of(args[0]), args[1].equals("-") ? null : Path.of(args[1]), tokens);
            var sb = new StringBuilder();
            for (double v : lp) {
                sb.append(sb.isEmpty() ? "" : ",").append(v);
            }
            System.out.println(sb);
        } catch (IllegalArgumentException e) { // HfFormatException included: bad input
            System.err.println(e.getMessage());
            System.exit(2);
        } catch (IOException e) {
            System.err.println(e.getMessage());
            System.exit(3);
        }
    }
}
