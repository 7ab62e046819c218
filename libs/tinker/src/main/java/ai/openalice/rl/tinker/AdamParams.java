package ai.openalice.rl.tinker;

/** The optimizer step's Adam parameters (decoupled weight decay when {@code weightDecay} > 0). */
public record AdamParams(double learningRate, double beta1, double beta2, double eps, double weightDecay) {
    public AdamParams {
        if (!(learningRate >= 0) || !(beta1 >= 0 && beta1 < 1) || !(beta2 >= 0 && beta2 < 1) || !(eps > 0) || !(weightDecay >= 0)) {
            throw new IllegalArgumentException("Adam parameters out of range: " + this);
        }
    }
}
