package ai.openalice.rl.harness;

import java.util.Locale;

/** How a listed test that gave different outcomes across runs is judged. */
public enum FlakyRule {
    /** It must pass in every run (default: a flaky test counts as failed). */
    STRICT,
    /** It must pass in more than half of the runs. */
    MAJORITY,
    /** One passing run is enough. */
    ANY;

    public static FlakyRule of(String name) {
        try {
            return valueOf(name.toUpperCase(Locale.ROOT));
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("flaky rule '" + name + "' is not one of strict, majority, any");
        }
    }
}
