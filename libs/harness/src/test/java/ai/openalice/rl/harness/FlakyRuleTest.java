package ai.openalice.rl.harness;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import org.junit.jupiter.api.Test;

class FlakyRuleTest {
    @Test
    void aRuleIsNamedInAnyCaseAndAnUnknownOneNamesTheKnown() {
        assertEquals(FlakyRule.MAJORITY, FlakyRule.of("Majority"));
        assertEquals(FlakyRule.STRICT, FlakyRule.of("strict"));
        var e = assertThrows(IllegalArgumentException.class, () -> FlakyRule.of("most"));
        assertEquals("flaky rule 'most' is not one of strict, majority, any", e.getMessage());
    }
}
