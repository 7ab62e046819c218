package ai.openalice.rl.model.hf;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

/** Rotary embeddings, by hand. */
class RopeTest {
    @Test
    void inverseFrequenciesAreThetaToTheMinusTwoIOverD() {
        // d = 4, θ = 10,000: θ^0 = 1 and θ^(−2/4) = 1/100
        assertArrayEquals(new double[] {1, 0.01}, Rope.inverseFrequencies(4, 10000, null), 1e-15);
    }

    @Test
    void llama3ScalingKeepsHighFrequenciesDividesLowOnesAndBlendsBetween() {
        var s = new HfConfig.RopeScaling(8, 1, 4, 8192); // wavelengths below 8192/4 = 2048 kept, above 8192/1 divided by 8
        assertEquals(1.0, Rope.llama3(1.0, s), 1e-15); // wavelength 2π
        double low = 2 * Math.PI / 65536; // wavelength 65,536 > 8,192
        assertEquals(low / 8, Rope.llama3(low, s), 1e-18);
        double mid = 2 * Math.PI / 4096; // wavelength 4,096: s = (8192/4096 − 1) / (4 − 1) = 1/3
        assertEquals(mid * ((2.0 / 3) / 8 + 1.0 / 3), Rope.llama3(mid, s), 1e-18); // = mid · 5/12
    }

    @Test
    void rotatesPairsOfTheTwoHalves() {
        // pairs (x0, x2) and (x1, x3) at position 1 with frequencies 1 and 0.01
        double[] x = {1, 0, 0, 1};
        Rope.rotate(x, 0, 1, new double[] {1, 0.01});
        assertArrayEquals(new double[] {Math.cos(1), -Math.sin(0.01), Math.sin(1), Math.cos(0.01)}, x, 1e-15);
        double[] at0 = {0.3, -0.2, 0.5, 0.7};
        Rope.rotate(at0, 0, 0, new double[] {1, 0.01});
        assertArrayEquals(new double[] {0.3, -0.2, 0.5, 0.7}, at0, 0, "position 0 is not rotated");
    }
}
