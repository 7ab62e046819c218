package ai.openalice.rl.core.eval;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.math.MathContext;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

class EvalTest {

    private static BigInteger binom(int n, int k) {
        BigInteger r = BigInteger.ONE;
        for (int i = 0; i < k; i++) {
            r = r.multiply(BigInteger.valueOf(n - i)).divide(BigInteger.valueOf(i + 1));
        }
        return r;
    }

    /** 1 − C(n−c, k)/C(n, k) in exact arithmetic. */
    private static double exact(int n, int c, int k) {
        if (n - c < k) {
            return 1;
        }
        return BigDecimal.ONE.subtract(new BigDecimal(binom(n - c, k)).divide(new BigDecimal(binom(n, k)), MathContext.DECIMAL128)).doubleValue();
    }

    @Test
    void passAtKByHand() {
        assertEquals(0.4, PassAtK.estimate(5, 2, 1), 1e-12);          // c/n
        assertEquals(1 - 3.0 / 10, PassAtK.estimate(5, 2, 2), 1e-12); // 1 − C(3,2)/C(5,2)
        assertEquals(1.0, PassAtK.estimate(5, 2, 4), 0);              // n − c < k
        assertEquals(0.0, PassAtK.estimate(5, 0, 3), 0);
    }

    @Test
    void passAtKIsStableForLargeN() {
        for (int[] t : new int[][] {{1000, 1, 1}, {1000, 500, 10}, {1000, 3, 100}, {1000, 999, 1}, {997, 13, 512}}) {
            assertEquals(exact(t[0], t[1], t[2]), PassAtK.estimate(t[0], t[1], t[2]), 1e-12, Arrays.toString(t));
        }
    }

    @Test
    void passAtKIsMonotoneInKAndEqualsCOverNAtOne() {
        for (int n = 1; n <= 60; n += 7) {
            for (int c = 0; c <= n; c++) {
                assertEquals((double) c / n, PassAtK.estimate(n, c, 1), 1e-12);
                double prev = -1;
                for (int k = 1; k <= n; k++) {
                    double v = PassAtK.estimate(n, c, k);
                    assertTrue(v >= prev - 1e-15, "n=" + n + " c=" + c + " k=" + k);
                    prev = v;
                }
            }
        }
        assertEquals("k must be in [1, n=5], got 6", assertThrows(IllegalArgumentException.class, () -> PassAtK.estimate(5, 1, 6)).getMessage());
    }

    @Test
    void meanPassAtOne() {
        // tasks (n=4, c=1) and (n=4, c=3): (0.25 + 0.75)/2
        assertEquals(0.5, PassAtK.mean(new int[][] {{4, 1}, {4, 3}}, 1), 1e-12);
    }

    @Test
    void selectionIsDeterministic() {
        var a = new Selection.Candidate("a", 1, 0.6, 100);
        var b = new Selection.Candidate("b", 1, 0.9, 300);
        var c = new Selection.Candidate("c", 0, 0.95, 50);
        var cands = List.of(a, b, c);
        assertEquals(c, Selection.bestByExecutionFree(cands));
        assertEquals(a, Selection.bestByExecution(cands)); // tie at 1: fewer tokens wins
        // hybrid α = 0.5: a 0.8, b 0.95, c 0.475
        assertEquals(b, Selection.bestHybrid(cands, 0.5));
        // α = 0: pure execution-free
        assertEquals(c, Selection.bestHybrid(cands, 0));
        var x = new Selection.Candidate("x", 0.5, 0.5, 10);
        var y = new Selection.Candidate("y", 0.5, 0.5, 10);
        assertEquals(x, Selection.bestHybrid(List.of(y, x), 0.3));
        assertEquals(x, Selection.bestByExecutionFree(List.of(y, x)));
    }
}
