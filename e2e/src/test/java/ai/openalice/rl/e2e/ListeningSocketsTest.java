package ai.openalice.rl.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/** /proc's address encoding, by hand: 127.0.0.1:8080 is 0100007F:1F90 (little-endian words). */
class ListeningSocketsTest {
    @Test
    void readsProcAddresses() {
        assertEquals("127.0.0.1:8080", ListeningSockets.address("0100007F:1F90"));
        assertTrue(ListeningSockets.loopback("0100007F:1F90"));
        assertEquals("0.0.0.0:9092", ListeningSockets.address("00000000:2384"));
        assertFalse(ListeningSockets.loopback("00000000:2384"), "the wildcard address");
        assertFalse(ListeningSockets.loopback("0A00A8C0:0050"), "192.168.0.10");
        assertTrue(ListeningSockets.loopback("00000000000000000000000001000000:1F90"), "::1");
        assertTrue(ListeningSockets.loopback("0000000000000000FFFF00000100007F:1F90"), "::ffff:127.0.0.1");
        assertFalse(ListeningSockets.loopback("00000000000000000000000000000000:1F90"), ":: (every interface)");
    }
}
