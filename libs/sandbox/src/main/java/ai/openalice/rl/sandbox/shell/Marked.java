package ai.openalice.rl.sandbox.shell;

import ai.openalice.rl.sandbox.OutputCollector;

/**
 * A stream cut at its marker: bytes before it go to the collector, the rest of the marker's line is
 * kept as the trailer. The marker starts with the only NUL it holds, so a partial match can only
 * start at a NUL, and a failed one gives its bytes back to the output.
 */
final class Marked {
    private final byte[] marker;
    final OutputCollector sink;
    private int matched;
    private boolean found;
    boolean lineDone;
    final StringBuilder trailer = new StringBuilder();

    Marked(byte[] marker, OutputCollector sink) {
        this.marker = marker;
        this.sink = sink;
    }

    void feed(byte[] b, int off, int len) {
        int i = off;
        int end = off + len;
        while (i < end && !lineDone) {
            if (found) {
                byte c = b[i++];
                if (c == '\n') {
                    lineDone = true;
                } else if (trailer.length() < 32) {
                    trailer.append((char) c);
                }
            } else if (matched == 0) {
                int z = i;
                while (z < end && b[z] != 0) {
                    z++;
                }
                sink.accept(b, i, z - i);
                if (z < end) {
                    matched = 1;
                    z++;
                }
                i = z;
            } else if (b[i] == marker[matched]) {
                i++;
                if (++matched == marker.length) {
                    found = true;
                }
            } else {
                sink.accept(marker, 0, matched); // not the marker: what was held back is output
                matched = 0;
            }
        }
    }
}
