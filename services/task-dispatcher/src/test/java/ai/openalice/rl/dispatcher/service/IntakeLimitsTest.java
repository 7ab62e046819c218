package ai.openalice.rl.dispatcher.service;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ai.openalice.rl.events.EventCodec;
import org.junit.jupiter.api.Test;

/** The size limits of intake, by hand: a task's JSON bytes against dispatcher.max-task-bytes, and the cut of a rejection's payload. */
class IntakeLimitsTest {
    @Test
    void aTaskIsMeasuredInBytesOfItsJson() throws Exception {
        var task = EventCodec.mapper().readTree("{ \"a\" : \"xxxx\" }"); // written back as {"a":"xxxx"}: 12 bytes
        assertNull(IntakeService.tooLarge(task, 12));
        String why = IntakeService.tooLarge(task, 11);
        assertTrue(why.startsWith("the task is 12 bytes of JSON, over dispatcher.max-task-bytes (11)"), why);
        var accented = EventCodec.mapper().readTree("{\"a\":\"é\"}"); // é is two bytes of UTF-8: 10 bytes, 9 characters
        assertNull(IntakeService.tooLarge(accented, 10));
        assertTrue(IntakeService.tooLarge(accented, 9).contains("is 10 bytes"));
    }

    @Test
    void aRejectionCarriesAtMost64KibOfThePayload() {
        String fits = "y".repeat(65_536);
        assertEquals(fits, IntakeService.cut(fits));
        String cut = IntakeService.cut("z".repeat(65_537));
        assertEquals("z".repeat(65_536) + "…(cut: 65537 characters in all)", cut);
        assertNull(IntakeService.cut(null));
    }
}
