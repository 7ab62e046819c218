package ai.openalice.rl.runner.service;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import org.junit.jupiter.api.Test;

/** runner.max-patch-bytes counts what the diff adds to the event: its JSON string, quotes and escapes included. */
class PatchLimitTest {
    @Test
    void theLimitIsOnTheEncodedDiff() {
        String diff = "+a\"b\n"; // 5 characters; as JSON: 2 quotes + '+' 'a' + \" (2) + 'b' + \n (2) = 9 bytes
        assertNull(EpisodeService.omittedPatchBytes(diff, 9), "exactly at the limit: carried");
        assertEquals(9L, EpisodeService.omittedPatchBytes(diff, 8), "one byte over: left out, its size reported");
        // 'é' is 2 UTF-8 bytes (not escaped), U+0001 is written \u0001 (6): 1 + 2 + 6 + 1 = 10
        assertEquals(10L, EpisodeService.omittedPatchBytes("é\u0001", 9));
        assertNull(EpisodeService.omittedPatchBytes(null, 2), "no diff: \"\" is 2 bytes");
    }
}
