package ai.openalice.rl.inference.rest;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import ai.openalice.rl.model.chat.ToolCalls;
import ai.openalice.rl.model.tokenizer.ByteTokenizer;
import ai.openalice.rl.policy.Completion;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

/** What a stream may send of a sample as its tokens come (the byte tokenizer: one token a byte, so a character may take two). */
class StreamTextTest {
    private final ByteTokenizer bytes = new ByteTokenizer();

    /** Feeds {@code text}'s bytes one token at a time; returns the text sent after each. */
    private List<String> feed(StreamText s, String text) {
        byte[] b = text.getBytes(StandardCharsets.UTF_8);
        var sent = new ArrayList<String>();
        for (int n = 1; n <= b.length; n++) {
            int[] tokens = new int[n];
            for (int i = 0; i < n; i++) {
                tokens[i] = b[i] & 0xff;
            }
            sent.add(s.next(tokens, new double[n]).text());
        }
        return sent;
    }

    @Test
    void halfACharacterWaitsForItsOtherHalf() {
        var s = new StreamText(bytes, List.of(), false);
        // "é" is two bytes: after the first the decoder shows U+FFFD, which is not the answer's
        assertEquals(List.of("a", "", "é", "b"), feed(s, "aéb"));
    }

    @Test
    void whatMayBeginAStopStringWaitsAndTheStopIsNeverSent() {
        var s = new StreamText(bytes, List.of("\nEND"), false);
        // "x\nE" may be the start of "\nEND": held; "x\nEy" is not: sent whole at once
        assertEquals(List.of("x", "", "", "\nEy"), feed(s, "x\nEy"));
        var t = new StreamText(bytes, List.of("\nEND"), false);
        assertEquals(List.of("x", "", "", ""), feed(t, "x\nEN"));
        // the generation stopped at "\nEND" and cut it: the completion is "x", all of it sent already
        int[] tokens = {'x', '\n', 'E', 'N', 'D'};
        var rest = t.finish(new Completion(Arrays.copyOf(tokens, 1), new double[1], "x", Completion.FinishReason.STOP, 1), "x");
        assertEquals("", rest.text());
        assertEquals(0, rest.tokens().length);
    }

    @Test
    void theEndTokenIsNeverTextAndTheRestComesWithTheFinish() {
        var s = new StreamText(bytes, List.of(), false);
        int end = bytes.endTokens()[0];
        assertEquals("hi", s.next(new int[] {'h', 'i'}, new double[] {-1, -2}).text());
        var d = s.next(new int[] {'h', 'i', end}, new double[] {-1, -2, -3});
        assertEquals("", d.text());
        var rest = s.finish(new Completion(new int[] {'h', 'i', end}, new double[] {-1, -2, -3}, "hi", Completion.FinishReason.STOP, 1), "hi");
        assertEquals("", rest.text());
        assertArrayEquals(new int[] {end}, rest.tokens(), "the end token is sent with the finish, so the tokens make the completion's");
        assertArrayEquals(new double[] {-3}, rest.logprobs());
    }

    @Test
    void eachCallIsFinalOnceItsClosingTagIsSampled() throws Exception {
        String text = "Two files.\n<tool_call>\n{\"name\": \"read\", \"arguments\": {\"path\": \"a.py\"}}\n</tool_call>\n"
                + "<tool_call>\n{\"name\": \"read\", \"arguments\": {\"path\": \"b.py\"}}\n</tool_call>";
        int firstEnd = text.indexOf("</tool_call>") + "</tool_call>".length();
        var s = new StreamText(bytes, List.of(), true);
        byte[] b = text.getBytes(StandardCharsets.UTF_8);
        var callsAt = new ArrayList<Integer>(); // how many calls are final after each byte
        for (int n = 1; n <= b.length; n++) {
            int[] tokens = new int[n];
            for (int i = 0; i < n; i++) {
                tokens[i] = b[i] & 0xff;
            }
            s.next(tokens, new double[n]);
            callsAt.add(s.closedCalls() == null ? 0 : ToolCalls.parse(s.closedCalls()).size());
        }
        // none until the first closing tag's last byte, one from then, two at the very end (ASCII: a byte is a character)
        assertEquals(0, callsAt.get(firstEnd - 2));
        assertEquals(1, callsAt.get(firstEnd - 1));
        assertEquals(1, callsAt.get(b.length - 2));
        assertEquals(2, callsAt.get(b.length - 1));
        assertEquals(ToolCalls.parse(text), ToolCalls.parse(s.closedCalls()), "the calls sent early are the whole message's");
        assertNull(new StreamText(bytes, List.of(), false).closedCalls(), "without tools nothing is a call");
    }

    @Test
    void withToolsOfferedACallIsNotContent() {
        var s = new StreamText(bytes, List.of(), true);
        List<String> sent = feed(s, "ok.\n<tool_call>{\"name\"");
        // "ok." goes out; the newline may precede a call (held), "<tool_call>" and what follows are the call's
        assertEquals("ok.", String.join("", sent));
        var t = new StreamText(bytes, List.of(), true);
        assertEquals("a <b", String.join("", feed(t, "a <b")), "'<b' is no call: sent once it cannot be one");
    }
}
