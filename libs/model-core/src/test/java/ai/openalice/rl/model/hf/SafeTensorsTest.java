package ai.openalice.rl.model.hf;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class SafeTensorsTest {
    @TempDir
    Path dir;

    /** A file laid out by hand, byte by byte, as the format specifies: the reader takes it. */
    static byte[] handMade(String header, float... values) {
        byte[] json = header.getBytes(StandardCharsets.UTF_8);
        var b = ByteBuffer.allocate(8 + json.length + 4 * values.length).order(ByteOrder.LITTLE_ENDIAN);
        b.putLong(json.length).put(json);
        for (float v : values) {
            b.putFloat(v);
        }
        return b.array();
    }

    @Test
    void readsAFileLaidOutByHand() throws IOException {
        Path f = dir.resolve("a.safetensors");
        Files.write(f, handMade("{\"__metadata__\":{\"format\":\"pt\"},\"b\":{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[8,12]},"
                + "\"a\":{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[0,8]}}", 1f, -2f, 0.5f));
        var st = SafeTensors.open(f);
        assertEquals(List.of("a", "b"), List.copyOf(st.entries().keySet()), "in file order");
        assertArrayEquals(new float[] {1f, -2f}, st.floats("a"));
        assertArrayEquals(new float[] {0.5f}, st.floats("b"));
        assertEquals("pt", st.metadata().get("format"));
    }

    @Test
    void roundTripsEveryWeightTypeBitForBit() throws IOException {
        var rnd = new Random(7);
        var tensors = new LinkedHashMap<String, SafeTensors.Tensor>();
        for (DType t : new DType[] {DType.F32, DType.F16, DType.BF16}) {
            byte[] raw = new byte[3 * 5 * t.bytes()];
            rnd.nextBytes(raw);
            tensors.put("w." + t, new SafeTensors.Tensor(t, new long[] {3, 5}, raw));
        }
        Path f = dir.resolve("m.safetensors");
        SafeTensors.write(f, tensors, Map.of("format", "pt"));
        var st = SafeTensors.open(f);
        for (var e : tensors.entrySet()) {
            assertArrayEquals(e.getValue().data(), st.bytes(e.getKey()), e.getKey());
            assertArrayEquals(new long[] {3, 5}, st.entries().get(e.getKey()).shape());
        }
        long headerLength = ByteBuffer.wrap(Files.readAllBytes(f), 0, 8).order(ByteOrder.LITTLE_ENDIAN).getLong();
        assertEquals(0, headerLength % 8, "the header is padded to 8 bytes");
    }

    @Test
    void widensHalfPrecisionExactly() {
        // bf16 0x3FC0 = 1.5 (the upper half of float 0x3FC00000); fp16 0xC000 = -2.0, 0x3555 = 0.333251953125
        byte[] bf = {(byte) 0xC0, 0x3F};
        assertArrayEquals(new float[] {1.5f}, SafeTensors.toFloats(DType.BF16, bf));
        byte[] f16 = {0x00, (byte) 0xC0, 0x55, 0x35};
        assertArrayEquals(new float[] {-2f, 0.333251953125f}, SafeTensors.toFloats(DType.F16, f16));
    }

    @Test
    void roundsToBfloat16NearestEven() {
        assertEquals((short) 0x3F80, DType.floatToBf16(1.0f));
        // 0x3F808000 lies halfway between bf16 0x3F80 and 0x3F81: to the even one, 0x3F80
        assertEquals((short) 0x3F80, DType.floatToBf16(Float.intBitsToFloat(0x3F808000)));
        // 0x3F818000 lies halfway between 0x3F81 and 0x3F82: to the even one, 0x3F82
        assertEquals((short) 0x3F82, DType.floatToBf16(Float.intBitsToFloat(0x3F818000)));
        // just above halfway rounds up
        assertEquals((short) 0x3F81, DType.floatToBf16(Float.intBitsToFloat(0x3F808001)));
        assertTrue(Float.isNaN(DType.bf16ToFloat(DType.floatToBf16(Float.NaN))));
    }

    @Test
    void refusesExtentsThatDoNotMatchTheHeader() throws IOException {
        Path gap = dir.resolve("gap.safetensors");
        Files.write(gap, handMade("{\"a\":{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[4,8]}}", 0f, 1f));
        var e = assertThrows(HfFormatException.class, () -> SafeTensors.open(gap));
        assertTrue(e.getMessage().contains("tensor a starts at data offset 4, expected 0"), e.getMessage());

        Path size = dir.resolve("size.safetensors");
        Files.write(size, handMade("{\"a\":{\"dtype\":\"F16\",\"shape\":[3],\"data_offsets\":[0,4]}}", 0f));
        e = assertThrows(HfFormatException.class, () -> SafeTensors.open(size));
        assertTrue(e.getMessage().contains("hold 4 bytes, but F16[3] needs 6"), e.getMessage());

        Path shortFile = dir.resolve("short.safetensors");
        Files.write(shortFile, handMade("{\"a\":{\"dtype\":\"F32\",\"shape\":[4],\"data_offsets\":[0,16]}}", 0f));
        e = assertThrows(HfFormatException.class, () -> SafeTensors.open(shortFile));
        assertTrue(e.getMessage().contains("end at byte"), e.getMessage());

        Path ints = dir.resolve("ints.safetensors");
        Files.write(ints, handMade("{\"ids\":{\"dtype\":\"I32\",\"shape\":[1],\"data_offsets\":[0,4]}}", 0f));
        e = assertThrows(HfFormatException.class, () -> SafeTensors.open(ints).floats("ids"));
        assertTrue(e.getMessage().contains("tensor ids is I32"), e.getMessage());
    }
}
