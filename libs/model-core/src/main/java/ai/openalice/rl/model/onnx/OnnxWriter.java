package ai.openalice.rl.model.onnx;

import com.google.protobuf.CodedOutputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Encodes an {@link OnnxGraph} as an ONNX ModelProto, field by field (onnx.proto numbering), with
 * protobuf-java's wire encoder. Initializers go inline, or — for large models — into an external
 * data file next to the model (ONNX's external-data convention: location, offset, length).
 */
public final class OnnxWriter {
    static final long IR_VERSION = 8;
    static final long OPSET = 17;
    static final int MIN_EXTERNAL_BYTES = 1024;

    private OnnxWriter() {}

    /**
     * Writes {@code model} to {@code file}; initializers larger than {@code externalThreshold}
     * bytes go to {@code <file name>.data} beside it (use Long.MAX_VALUE to keep everything inline).
     */
    public static void write(OnnxGraph graph, Path file, String producerVersion, long externalThreshold) throws IOException {
        Path dataFile = file.resolveSibling(file.getFileName() + ".data");
        Files.deleteIfExists(dataFile);
        try (OutputStream data = externalThreshold == Long.MAX_VALUE ? OutputStream.nullOutputStream() : Files.newOutputStream(dataFile)) {
            var external = new External(dataFile.getFileName().toString(), data, externalThreshold);
            byte[] model = message(m -> {
                m.writeInt64(1, IR_VERSION);
                m.writeString(2, "alice-rl");
                m.writeString(3, producerVersion);
                m.writeByteArray(7, graph(graph, external));
                m.writeByteArray(8, message(o -> {
                    o.writeString(1, "");
                    o.writeInt64(2, OPSET);
                }));
            });
            Files.write(file, model);
        }
        if (externalThreshold != Long.MAX_VALUE && Files.size(dataFile) == 0) {
            Files.delete(dataFile);
        }
    }

    /** Where initializers above {@code threshold} bytes go. */
    private record External(String location, OutputStream out, long threshold) {}

    private static byte[] graph(OnnxGraph g, External external) throws IOException {
        long[] offset = {0};
        return message(m -> {
            for (OnnxGraph.Node n : g.nodes) {
                m.writeByteArray(1, node(n));
            }
            m.writeString(2, g.name);
            for (OnnxGraph.Initializer t : g.initializers.values()) {
                m.writeByteArray(5, tensor(t, external, offset));
            }
            for (OnnxGraph.ValueInfo v : g.inputs) {
                m.writeByteArray(11, valueInfo(v));
            }
            for (OnnxGraph.ValueInfo v : g.outputs) {
                m.writeByteArray(12, valueInfo(v));
            }
        });
    }

    private static byte[] node(OnnxGraph.Node n) throws IOException {
        return message(m -> {
            for (String in : n.inputs()) {
                m.writeString(1, in);
            }
            for (String out : n.outputs()) {
                m.writeString(2, out);
            }
            m.writeString(3, n.outputs().getFirst() + "_node");
            m.writeString(4, n.opType());
            for (OnnxGraph.Attribute a : n.attributes()) {
                m.writeByteArray(5, attribute(a));
            }
        });
    }

    private static byte[] attribute(OnnxGraph.Attribute a) throws IOException {
        return message(m -> {
            m.writeString(1, a.name());
            switch (a) {
                case OnnxGraph.Attribute.Float f -> {
                    m.writeFloat(2, f.value());
                    m.writeInt32(20, 1);
                }
                case OnnxGraph.Attribute.Int i -> {
                    m.writeInt64(3, i.value());
                    m.writeInt32(20, 2);
                }
                case OnnxGraph.Attribute.Tensor t -> {
                    m.writeByteArray(5, tensor(t.value(), null, null));
                    m.writeInt32(20, 4);
                }
                case OnnxGraph.Attribute.Ints is -> {
                    for (long v : is.values()) {
                        m.writeInt64(8, v);
                    }
                    m.writeInt32(20, 7);
                }
            }
        });
    }

    private static byte[] tensor(OnnxGraph.Initializer t, External external, long[] offset) throws IOException {
        byte[] raw = raw(t);
        return message(m -> {
            for (long d : t.dims()) {
                m.writeInt64(1, d);
            }
            m.writeInt32(2, t.dataType());
            m.writeString(8, t.name());
            // Only weights go external: shape constants must stay inline for shape inference.
            if (external != null && t.dataType() == OnnxGraph.FLOAT && raw.length >= MIN_EXTERNAL_BYTES && raw.length > external.threshold()) {
                external.out().write(raw);
                m.writeByteArray(13, entry("location", external.location()));
                m.writeByteArray(13, entry("offset", Long.toString(offset[0])));
                m.writeByteArray(13, entry("length", Long.toString(raw.length)));
                m.writeInt32(14, 1); // DataLocation.EXTERNAL
                offset[0] += raw.length;
            } else {
                m.writeByteArray(9, raw);
            }
        });
    }

    private static byte[] entry(String key, String value) throws IOException {
        return message(m -> {
            m.writeString(1, key);
            m.writeString(2, value);
        });
    }

    /** Little-endian raw bytes of the tensor's values. */
    private static byte[] raw(OnnxGraph.Initializer t) {
        if (t.dataType() == OnnxGraph.FLOAT) {
            var b = ByteBuffer.allocate(t.floats().length * 4).order(ByteOrder.LITTLE_ENDIAN);
            b.asFloatBuffer().put(t.floats());
            return b.array();
        }
        var b = ByteBuffer.allocate(t.longs().length * 8).order(ByteOrder.LITTLE_ENDIAN);
        b.asLongBuffer().put(t.longs());
        return b.array();
    }

    private static byte[] valueInfo(OnnxGraph.ValueInfo v) throws IOException {
        byte[] shape = message(s -> {
            for (Object d : v.dims()) {
                s.writeByteArray(1, message(dim -> {
                    if (d instanceof String p) {
                        dim.writeString(2, p);
                    } else {
                        dim.writeInt64(1, ((Number) d).longValue());
                    }
                }));
            }
        });
        byte[] tensorType = message(t -> {
            t.writeInt32(1, v.elemType());
            t.writeByteArray(2, shape);
        });
        byte[] type = message(t -> t.writeByteArray(1, tensorType));
        return message(m -> {
            m.writeString(1, v.name());
            m.writeByteArray(2, type);
        });
    }

    @FunctionalInterface
    private interface Fields {
        void write(CodedOutputStream out) throws IOException;
    }

    private static byte[] message(Fields fields) throws IOException {
        var bytes = new ByteArrayOutputStream();
        CodedOutputStream out = CodedOutputStream.newInstance(bytes);
        fields.write(out);
        out.flush();
        return bytes.toByteArray();
    }
}
