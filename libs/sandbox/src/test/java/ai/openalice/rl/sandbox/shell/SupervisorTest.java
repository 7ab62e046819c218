package ai.openalice.rl.sandbox.shell;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ai.openalice.rl.sandbox.OutputCollector;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/** Cutting a stream at its marker, however the bytes arrive. */
class SupervisorTest {
    private static final byte[] MARKER = "\0abc".getBytes(StandardCharsets.US_ASCII);

    private static Marked feedInChunks(byte[] stream, int chunk) {
        var m = new Marked(MARKER, new OutputCollector(1 << 16));
        for (int i = 0; i < stream.length; i += chunk) {
            m.feed(stream, i, Math.min(chunk, stream.length - i));
        }
        return m;
    }

    @Test
    void outputBeforeTheMarkerIsKeptWholeAndTheTrailerIsRead() {
        // NULs, a partial marker and a marker cut short all belong to the output.
        String output = "one\0two\0ab\0\0abX\0a";
        byte[] stream = (output + "\0abc 17\n").getBytes(StandardCharsets.ISO_8859_1);
        for (int chunk : new int[] {1, 2, 3, 5, 7, stream.length}) {
            var m = feedInChunks(stream, chunk);
            assertTrue(m.lineDone, "chunk " + chunk);
            assertEquals(output, m.sink.text(), "chunk " + chunk);
            assertEquals(" 17", m.trailer.toString(), "chunk " + chunk);
        }
    }

    @Test
    void withoutItsNewlineTheMarkerIsNotDone() {
        var m = feedInChunks("out\0abc 0".getBytes(StandardCharsets.US_ASCII), 4);
        assertFalse(m.lineDone);
        assertEquals("out", m.sink.text());
        var bytes = new ByteArrayOutputStream();
        bytes.writeBytes("x".repeat(100).getBytes(StandardCharsets.US_ASCII));
        var plain = feedInChunks(bytes.toByteArray(), 9);
        assertFalse(plain.lineDone);
        assertEquals("x".repeat(100), plain.sink.text());
    }
}
