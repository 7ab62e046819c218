package ai.openalice.rl.sandbox;

import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;

/**
 * Drains a stream completely but keeps at most {@code cap} bytes of it: the first half and the
 * last half, so that both the start of the output and its end (where test summaries are) survive.
 * Memory stays bounded however much a command prints.
 */
public final class OutputCollector {
    private final byte[] head;
    private final byte[] tail;
    private int headLength;
    private long total;

    public OutputCollector(int cap) {
        this.head = new byte[cap - cap / 2];
        this.tail = new byte[cap / 2];
    }

    /** Reads {@code in} to its end. */
    public void drain(InputStream in) throws IOException {
        byte[] buf = new byte[8192];
        int n;
        while ((n = in.read(buf)) > 0) {
            accept(buf, 0, n);
        }
    }

    public synchronized void accept(byte[] b, int off, int len) {
        for (int i = 0; i < len; i++) {
            byte x = b[off + i];
            if (headLength < head.length) {
                head[headLength++] = x;
            } else if (tail.length > 0) {
                tail[(int) ((total - head.length) % tail.length)] = x;
            }
            total++;
        }
    }

    public synchronized boolean truncated() {
        return total > head.length + tail.length;
    }

    public synchronized long totalBytes() {
        return total;
    }

    /** The kept text; where bytes were dropped, a line says how many. */
    public synchronized String text() {
        if (total <= head.length) {
            return decode(head, headLength);
        }
        long inTail = Math.min(tail.length, total - head.length);
        byte[] t = new byte[(int) inTail];
        long start = total - inTail; // absolute offset of the first kept tail byte
        for (int i = 0; i < inTail; i++) {
            t[i] = tail[(int) ((start - head.length + i) % tail.length)];
        }
        long dropped = total - head.length - inTail;
        String middle = dropped > 0 ? "\n[... " + dropped + " bytes of output omitted ...]\n" : "";
        return decode(head, head.length) + middle + decode(t, t.length);
    }

    private static String decode(byte[] b, int len) {
        try {
            return StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPLACE)
                    .onUnmappableCharacter(CodingErrorAction.REPLACE).decode(ByteBuffer.wrap(b, 0, len)).toString();
        } catch (CharacterCodingException e) {
            throw new IllegalStateException(e);
        }
    }
}
