package ai.openalice.rl.agent.external;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ai.openalice.rl.agent.external.RecordedCalls.Call;
import ai.openalice.rl.events.Turn;
import java.util.List;
import org.junit.jupiter.api.Test;

class RecordedCallsTest {

    @Test
    void callsThatExtendTheContextTokenForTokenBecomeDeltas() {
        var calls = List.of(
                new Call(new int[] {1, 2, 3}, new int[] {4, 5}, new double[] {-0.1, -0.2}, 7, 30, 5),
                new Call(new int[] {1, 2, 3, 4, 5, 6, 7}, new int[] {8}, new double[] {-0.3}, 7, 20, 100),
                new Call(new int[] {1, 2, 3, 4, 5, 6, 7, 8, 9}, new int[] {10, 11}, new double[] {-0.4, -0.5}, 8, 25, 200));
        var a = RecordedCalls.turns(calls, 40);
        assertEquals(List.of(List.of(1, 2, 3), List.of(6, 7), List.of(9)), a.turns().stream().map(Turn::promptDeltaTokenIds).toList());
        assertEquals(List.of(List.of(4, 5), List.of(8), List.of(10, 11)), a.turns().stream().map(Turn::completionTokenIds).toList());
        assertEquals(List.of(-0.4, -0.5), a.turns().get(2).logprobs());
        assertEquals(List.of(7L, 7L, 8L), a.turns().stream().map(Turn::policyVersion).toList());
        assertTrue(a.turns().stream().noneMatch(Turn::newContext));
        assertEquals(2, a.extended());
        assertEquals(0, a.rewritten());
        // a turn's tool time is the agent's time after its answer: the next call's gap, the tail for the last
        assertEquals(List.of(100L, 200L, 40L), a.turns().stream().map(Turn::toolMs).toList());
        assertEquals(List.of(30L, 20L, 25L), a.turns().stream().map(Turn::policyMs).toList());
    }

    @Test
    void aRewrittenHistoryStartsANewContextWithTheWholePromptNotAMerge() {
        var calls = List.of(
                new Call(new int[] {1, 2, 3}, new int[] {4, 5}, new double[] {-0.1, -0.2}, 0, 0, 0),
                // the agent dropped its first answer: [1 2 3 6] does not begin with [1 2 3 4 5]
                new Call(new int[] {1, 2, 3, 6}, new int[] {7}, new double[] {-0.3}, 0, 0, 0),
                // and went on from there
                new Call(new int[] {1, 2, 3, 6, 7, 8}, new int[] {9}, new double[] {-0.4}, 0, 0, 0));
        var a = RecordedCalls.turns(calls, 0);
        assertEquals(List.of(false, true, false), a.turns().stream().map(Turn::newContext).toList());
        assertEquals(List.of(1, 2, 3, 6), a.turns().get(1).promptDeltaTokenIds());
        assertEquals(List.of(8), a.turns().get(2).promptDeltaTokenIds());
        assertEquals(1, a.extended());
        assertEquals(1, a.rewritten());
    }

    @Test
    void anAnswerThatCameBackTokenisedOtherwiseIsNotAnExtension() {
        // the agent sent its answer back as text, which tokenised to [45] where [4 5] was sampled
        var calls = List.of(
                new Call(new int[] {1, 2}, new int[] {4, 5}, new double[] {-0.1, -0.2}, 0, 0, 0),
                new Call(new int[] {1, 2, 45, 6}, new int[] {7}, new double[] {-0.3}, 0, 0, 0));
        var a = RecordedCalls.turns(calls, 0);
        assertTrue(a.turns().get(1).newContext());
        assertEquals(List.of(1, 2, 45, 6), a.turns().get(1).promptDeltaTokenIds());
    }

    @Test
    void aPromptEqualToTheContextExtendsItWithNothing() {
        var calls = List.of(new Call(new int[] {1}, new int[] {2}, new double[] {-0.1}, 0, 0, 0),
                new Call(new int[] {1, 2}, new int[] {3}, new double[] {-0.2}, 0, 0, 0));
        var a = RecordedCalls.turns(calls, 0);
        assertFalse(a.turns().get(1).newContext());
        assertEquals(List.of(), a.turns().get(1).promptDeltaTokenIds());
    }

    @Test
    void aCallMustHoldAPromptAndALogProbPerToken() {
        assertThrows(IllegalArgumentException.class, () -> new Call(new int[0], new int[] {1}, new double[] {-1}, 0, 0, 0));
        assertThrows(IllegalArgumentException.class, () -> new Call(new int[] {1}, new int[] {1, 2}, new double[] {-1}, 0, 0, 0));
    }
}
