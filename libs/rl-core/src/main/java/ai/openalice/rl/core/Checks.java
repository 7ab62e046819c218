package ai.openalice.rl.core;

/** Argument checks whose messages name the argument and the offending value. */
public final class Checks {
    private Checks() {}

    public static void sameLength(String a, int lengthA, String b, int lengthB) {
        if (lengthA != lengthB) {
            throw new IllegalArgumentException(a + " has " + lengthA + " entries but " + b + " has " + lengthB);
        }
    }

    public static void finite(String name, double value) {
        if (!Double.isFinite(value)) {
            throw new IllegalArgumentException(name + " must be finite, got " + value);
        }
    }

    public static void finite(String name, double[] values) {
        for (int i = 0; i < values.length; i++) {
            if (!Double.isFinite(values[i])) {
                throw new IllegalArgumentException(name + "[" + i + "] must be finite, got " + values[i]);
            }
        }
    }

    public static void inClosedRange(String name, double value, double low, double high) {
        if (!(value >= low && value <= high)) {
            throw new IllegalArgumentException(name + " must be in [" + low + ", " + high + "], got " + value);
        }
    }

    public static void positive(String name, double value) {
        if (!(value > 0)) {
            throw new IllegalArgumentException(name + " must be > 0, got " + value);
        }
    }
}
