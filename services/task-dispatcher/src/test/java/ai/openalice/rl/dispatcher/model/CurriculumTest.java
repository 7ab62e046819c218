package ai.openalice.rl.dispatcher.model;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import org.junit.jupiter.api.Test;

class CurriculumTest {
    @Test
    void uniformGroupsBenchForBaseTimesTwoToTheStreakCappedAndAMixedOneEndsTheStreak() {
        var c = new Curriculum(4, 20);
        // round 10: first uniform group → streak 1, 4·2⁰ = 4 rounds → until 14
        assertEquals(new Curriculum.Bench(1, 14), c.after(0, true, 10));
        // round 14: second in a row → 4·2¹ = 8 → until 22
        assertEquals(new Curriculum.Bench(2, 22), c.after(1, true, 14));
        // third → 4·2² = 16; fourth → 32, capped at 20
        assertEquals(new Curriculum.Bench(3, 38), c.after(2, true, 22));
        assertEquals(new Curriculum.Bench(4, 58), c.after(3, true, 38));
        // a mixed group: back in rotation at once
        assertEquals(new Curriculum.Bench(0, 0), c.after(4, false, 58));
        // a very long streak does not overflow the shift
        assertEquals(20, c.rounds(200));
        assertEquals(new Curriculum.Bench(1, 5), new Curriculum(0, 20).after(0, true, 5), "base 0: counted, never benched");
        assertThrows(IllegalArgumentException.class, () -> new Curriculum(-1, 20));
    }
}
