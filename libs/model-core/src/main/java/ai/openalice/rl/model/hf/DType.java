package ai.openalice.rl.model.hf;

import java.util.Arrays;

/**
 * A safetensors element type, by the name the format's header uses. Weights are read as float32
 * from {@link #F32}, {@link #F16} and {@link #BF16}; the other types are recognised (so a file that
 * holds them still opens) and refused when read as weights, naming the tensor.
 */
public enum DType {
    F64(8), F32(4), F16(2), BF16(2), F8_E4M3(1), F8_E5M2(1), I64(8), I32(4), I16(2), I8(1), U64(8), U32(4), U16(2), U8(1), BOOL(1);

    private final int bytes;

    DType(int bytes) {
        this.bytes = bytes;
    }

    /** Bytes per element. */
    public int bytes() {
        return bytes;
    }

    /** Whether weights of this type can be read as float32 (exactly, or widened). */
    public boolean isWeight() {
        return this == F32 || this == F16 || this == BF16;
    }

    public static DType of(String name) {
        return Arrays.stream(values()).filter(d -> d.name().equals(name)).findFirst()
                .orElseThrow(() -> new IllegalArgumentException("'" + name + "' is not a safetensors dtype (known: " + Arrays.toString(values()) + ")"));
    }

    /** bfloat16 (the upper half of a float32) to float32: exact. */
    public static float bf16ToFloat(short bits) {
        return Float.intBitsToFloat((bits & 0xffff) << 16);
    }

    /** float32 to bfloat16, rounded to nearest, ties to even; NaN stays a (quiet) NaN. */
    public static short floatToBf16(float f) {
        int bits = Float.floatToRawIntBits(f);
        if (Float.isNaN(f)) {
            return (short) ((bits >>> 16) | 0x0040);
        }
        int rounding = 0x7fff + ((bits >>> 16) & 1);
        return (short) ((bits + rounding) >>> 16);
    }
}
