package ai.openalice.rl.tinker;

/**
 * The optimizer step's Adam parameters (decoupled weight decay when {@code weightDecay} > 0), and
 * the Tinker API's {@code grad_clip_norm} (0: none) — which an engine may not apply: SkyRL's server
 * ignores it (docs/learners.md).
 */
public record AdamParams(double learningRate, double beta1, double beta2, double eps, double weightDecay, double gradClipNorm) {
    public AdamParams {
        if (!(learningRate >= 0) || !(beta1 >= 0 && beta1 < 1) || !(beta2 >= 0 && beta2 < 1) || !(eps > 0) || !(weightDecay >= 0)
                || !(gradClipNorm >= 0)) {
            throw new IllegalArgumentException("Adam parameters out of range: " + this);
        }
    }

    /** Without gradient clipping. */
    public AdamParams(double learningRate, double beta1, double beta2, double eps, double weightDecay) {
        this(learningRate, beta1, beta2, eps, weightDecay, 0);
    }
}
