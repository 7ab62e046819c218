package ai.openalice.rl.model.djl;

import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.types.Shape;

/**
 * Arithmetic with a constant, for code that builds an autograd graph. DJL's {@code x.mul(0.5f)}
 * wraps the constant in a tensor over a Java direct buffer and closes that wrapper as soon as the
 * op returns; PyTorch's graph keeps the tensor for the backward pass (the derivative of x·c needs
 * c), the garbage collector frees the buffer, and the backward pass reads freed memory: NaN or
 * huge gradients with an unchanged loss, and now and then a SIGSEGV. The constants here are
 * allocated by PyTorch ({@code full}), so the graph's reference keeps them alive, whatever happens
 * to the Java wrapper. Use these, never the {@code Number} overloads, on anything that needs a
 * gradient.
 */
public final class Scalars {
    private Scalars() {}

    /**
     * {@code values} as a tensor whose memory PyTorch owns: {@code NDManager.create} hands PyTorch
     * a Java direct buffer ({@code from_blob}), which is freed once the wrapper is closed even while
     * a graph still holds the tensor (the rotary tables, multiplied in, are kept for the backward).
     */
    public static NDArray owned(NDManager m, float[] values, Shape shape) {
        try (NDArray borrowed = m.create(values, shape)) {
            return borrowed.duplicate();
        }
    }

    /** A 0-dimensional tensor holding {@code value}, owned by PyTorch, on {@code like}'s manager, device and data type. */
    public static NDArray of(NDArray like, double value) {
        return like.getManager().full(new Shape(), (float) value, like.getDataType());
    }

    public static NDArray mul(NDArray x, double c) {
        return x.mul(of(x, c));
    }

    public static NDArray div(NDArray x, double c) {
        return x.div(of(x, c));
    }

    public static NDArray add(NDArray x, double c) {
        return x.add(of(x, c));
    }

    public static NDArray square(NDArray x) {
        return x.mul(x);
    }

    public static NDArray minimum(NDArray x, double c) {
        return x.minimum(of(x, c));
    }

    public static NDArray maximum(NDArray x, double c) {
        return x.maximum(of(x, c));
    }
}
