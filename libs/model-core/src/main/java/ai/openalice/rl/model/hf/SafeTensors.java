package ai.openalice.rl.model.hf;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.Arrays;
import java.util.Collections;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * One {@code .safetensors} file, as HuggingFace defines the format: an 8-byte little-endian
 * header length N, N bytes of JSON (each tensor's {@code dtype}, {@code shape} and
 * {@code data_offsets [begin, end)} relative to the data that follows; optionally a
 * {@code __metadata__} map of strings), then the tensors' raw little-endian bytes. Opening checks
 * every tensor's extent against its dtype and shape and against the file; reading maps only the
 * tensor asked for, so a file larger than memory can be read tensor by tensor.
 */
public final class SafeTensors {
    /** Refuses headers larger than this (the format's own readers use 100 MB). */
    static final long MAX_HEADER = 100L << 20;
    private static final ObjectMapper JSON = new ObjectMapper();

    /** A tensor's entry in the header; {@code begin}/{@code end} are absolute file offsets. */
    public record Entry(String name, DType dtype, long[] shape, long begin, long end) {
        public long elements() {
            return Arrays.stream(shape).reduce(1, Math::multiplyExact);
        }
    }

    private final Path file;
    private final Map<String, Entry> entries;
    private final Map<String, String> metadata;

    private SafeTensors(Path file, Map<String, Entry> entries, Map<String, String> metadata) {
        this.file = file;
        this.entries = entries;
        this.metadata = metadata;
    }

    /** Reads and checks the header of {@code file}. */
    public static SafeTensors open(Path file) throws IOException {
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ)) {
            long size = ch.size();
            if (size < 8) {
                throw new HfFormatException(file + ": not a safetensors file (" + size + " bytes, the header length alone takes 8)");
            }
            ByteBuffer len = ByteBuffer.allocate(8).order(ByteOrder.LITTLE_ENDIAN);
            readFully(ch, len, 0);
            long n = len.flip().getLong();
            if (n <= 0 || n > MAX_HEADER || 8 + n > size) {
                throw new HfFormatException(file + ": header length " + n + " is impossible for a file of " + size + " bytes");
            }
            ByteBuffer header = ByteBuffer.allocate((int) n);
            readFully(ch, header, 8);
            JsonNode json;
            try {
                json = JSON.readTree(new String(header.array(), StandardCharsets.UTF_8));
            } catch (IOException e) {
                throw new HfFormatException(file + ": the header is not JSON: " + e.getMessage());
            }
            return parse(file, json, 8 + n, size);
        }
    }

    private static SafeTensors parse(Path file, JsonNode json, long dataStart, long size) {
        if (!json.isObject()) {
            throw new HfFormatException(file + ": the header is not a JSON object");
        }
        var entries = new LinkedHashMap<String, Entry>();
        var metadata = new LinkedHashMap<String, String>();
        long expected = dataStart;
        var fields = json.properties().stream().sorted(Map.Entry.comparingByValue(
                Comparator.comparingLong(v -> v.path("data_offsets").path(0).asLong()))).toList();
        for (var f : fields) {
            if (f.getKey().equals("__metadata__")) {
                f.getValue().properties().forEach(m -> metadata.put(m.getKey(), m.getValue().asText()));
                continue;
            }
            Entry e = entry(file, f.getKey(), f.getValue(), dataStart);
            if (e.begin() != expected) {
                throw new HfFormatException(file + ": tensor " + e.name() + " starts at data offset " + (e.begin() - dataStart) + ", expected "
                        + (expected - dataStart) + " (tensors must be contiguous, without gaps or overlaps)");
            }
            expected = e.end();
            entries.put(e.name(), e);
        }
        if (expected > size) {
            throw new HfFormatException(file + ": the tensors end at byte " + expected + " but the file has " + size);
        }
        return new SafeTensors(file, Collections.unmodifiableMap(entries), Collections.unmodifiableMap(metadata));
    }

    private static Entry entry(Path file, String name, JsonNode v, long dataStart) {
        String where = file + ": tensor " + name;
        DType dtype;
        try {
            dtype = DType.of(v.path("dtype").asText());
        } catch (IllegalArgumentException e) {
            throw new HfFormatException(where + ": dtype: " + e.getMessage());
        }
        if (!v.path("shape").isArray() || !v.path("data_offsets").isArray() || v.path("data_offsets").size() != 2) {
            throw new HfFormatException(where + ": needs shape (array) and data_offsets ([begin, end])");
        }
        long[] shape = new long[v.get("shape").size()];
        for (int i = 0; i < shape.length; i++) {
            shape[i] = v.get("shape").get(i).asLong(-1);
            if (shape[i] < 0) {
                throw new HfFormatException(where + ": shape " + v.get("shape") + " has a negative or non-integer dimension");
            }
        }
        long begin = v.get("data_offsets").get(0).asLong();
        long end = v.get("data_offsets").get(1).asLong();
        long bytes = Arrays.stream(shape).reduce(1, Math::multiplyExact) * dtype.bytes();
        if (end - begin != bytes) {
            throw new HfFormatException(where + ": data_offsets [" + begin + ", " + end + ") hold " + (end - begin) + " bytes, but " + dtype
                    + Arrays.toString(shape) + " needs " + bytes);
        }
        return new Entry(name, dtype, shape, dataStart + begin, dataStart + end);
    }

    private static void readFully(FileChannel ch, ByteBuffer buf, long at) throws IOException {
        while (buf.hasRemaining()) {
            if (ch.read(buf, at + buf.position()) < 0) {
                throw new IOException("unexpected end of file");
            }
        }
    }

    public Path file() {
        return file;
    }

    /** The tensors, in file order. */
    public Map<String, Entry> entries() {
        return entries;
    }

    public Map<String, String> metadata() {
        return metadata;
    }

    /** The raw little-endian bytes of tensor {@code name}. */
    public byte[] bytes(String name) throws IOException {
        Entry e = entry(name);
        long n = e.end() - e.begin();
        if (n > Integer.MAX_VALUE - 8) {
            throw new HfFormatException(file + ": tensor " + name + " has " + n + " bytes, more than one Java array holds");
        }
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ)) {
            ByteBuffer buf = ByteBuffer.allocate((int) n);
            readFully(ch, buf, e.begin());
            return buf.array();
        }
    }

    /** Tensor {@code name} as float32, row-major (F16 and BF16 widened exactly). */
    public float[] floats(String name) throws IOException {
        Entry e = entry(name);
        if (!e.dtype().isWeight()) {
            throw new HfFormatException(file + ": tensor " + name + " is " + e.dtype() + "; weights are read from F32, F16 or BF16");
        }
        return toFloats(e.dtype(), bytes(name));
    }

    private Entry entry(String name) {
        Entry e = entries.get(name);
        if (e == null) {
            throw new HfFormatException(file + ": no tensor " + name);
        }
        return e;
    }

    /** Little-endian {@code raw} of {@code dtype} as float32. */
    public static float[] toFloats(DType dtype, byte[] raw) {
        ByteBuffer b = ByteBuffer.wrap(raw).order(ByteOrder.LITTLE_ENDIAN);
        float[] out = new float[raw.length / dtype.bytes()];
        for (int i = 0; i < out.length; i++) {
            out[i] = switch (dtype) {
                case F32 -> b.getFloat();
                case F16 -> Float.float16ToFloat(b.getShort());
                case BF16 -> DType.bf16ToFloat(b.getShort());
                default -> throw new IllegalArgumentException(dtype + " is not a weight type");
            };
        }
        return out;
    }

    /** {@code values} as little-endian {@code dtype} (F16 and BF16 rounded to nearest even). */
    public static byte[] fromFloats(DType dtype, float[] values) {
        ByteBuffer b = ByteBuffer.allocate(values.length * dtype.bytes()).order(ByteOrder.LITTLE_ENDIAN);
        for (float v : values) {
            switch (dtype) {
                case F32 -> b.putFloat(v);
                case F16 -> b.putShort(Float.floatToFloat16(v));
                case BF16 -> b.putShort(DType.floatToBf16(v));
                default -> throw new IllegalArgumentException(dtype + " is not a weight type");
            }
        }
        return b.array();
    }

    /** A tensor to write: its dtype, shape and raw little-endian bytes. */
    public record Tensor(DType dtype, long[] shape, byte[] data) {
        public Tensor {
            long bytes = Arrays.stream(shape).reduce(1, Math::multiplyExact) * dtype.bytes();
            if (bytes != data.length) {
                throw new IllegalArgumentException(dtype + Arrays.toString(shape) + " needs " + bytes + " bytes, got " + data.length);
            }
        }

        public static Tensor of(DType dtype, long[] shape, float[] values) {
            return new Tensor(dtype, shape, fromFloats(dtype, values));
        }
    }

    /**
     * Writes {@code tensors} (in the order given) with {@code metadata} to {@code file}, atomically
     * (a temporary file moved into place). The header is padded with spaces to a multiple of 8
     * bytes, so that every tensor's data starts 8-byte aligned when offsets are.
     */
    public static void write(Path file, Map<String, Tensor> tensors, Map<String, String> metadata) throws IOException {
        ObjectNode header = JSON.createObjectNode();
        if (!metadata.isEmpty()) {
            ObjectNode m = header.putObject("__metadata__");
            metadata.forEach(m::put);
        }
        long offset = 0;
        for (var t : tensors.entrySet()) {
            ObjectNode e = header.putObject(t.getKey());
            e.put("dtype", t.getValue().dtype().name());
            var shape = e.putArray("shape");
            Arrays.stream(t.getValue().shape()).forEach(shape::add);
            e.putArray("data_offsets").add(offset).add(offset + t.getValue().data().length);
            offset += t.getValue().data().length;
        }
        byte[] json = JSON.writeValueAsString(header).getBytes(StandardCharsets.UTF_8);
        int padded = (json.length + 7) / 8 * 8;
        byte[] head = Arrays.copyOf(json, padded);
        Arrays.fill(head, json.length, padded, (byte) ' ');
        Path tmp = file.resolveSibling(file.getFileName() + ".tmp");
        try (FileChannel ch = FileChannel.open(tmp, StandardOpenOption.CREATE, StandardOpenOption.TRUNCATE_EXISTING, StandardOpenOption.WRITE)) {
            writeFully(ch, ByteBuffer.allocate(8).order(ByteOrder.LITTLE_ENDIAN).putLong(padded).flip());
            writeFully(ch, ByteBuffer.wrap(head));
            for (Tensor t : tensors.values()) {
                writeFully(ch, ByteBuffer.wrap(t.data()));
            }
            ch.force(true);
        }
        Files.move(tmp, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
    }

    private static void writeFully(FileChannel ch, ByteBuffer b) throws IOException {
        while (b.hasRemaining()) {
            ch.write(b);
        }
    }
}
