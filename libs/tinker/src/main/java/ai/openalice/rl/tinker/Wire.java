package ai.openalice.rl.tinker;

import ai.openalice.rl.tinker.wire.BatchedTensor;
import ai.openalice.rl.tinker.wire.Chunk;
import ai.openalice.rl.tinker.wire.DType;
import ai.openalice.rl.tinker.wire.EncodedTextChunk;
import ai.openalice.rl.tinker.wire.ForwardBackwardOutput;
import ai.openalice.rl.tinker.wire.ForwardBackwardRequest;
import ai.openalice.rl.tinker.wire.SampleResponse;
import ai.openalice.rl.tinker.wire.SampledSequence;
import ai.openalice.rl.tinker.wire.StopReason;
import ai.openalice.rl.tinker.wire.Tensor;
import ai.openalice.rl.tinker.wire.WireDatum;
import com.google.protobuf.ByteString;
import com.google.protobuf.InvalidProtocolBufferException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** Between our types and the protobuf messages: arrays as little-endian bytes (tokens int32, reals float32, offsets int64). */
final class Wire {
    private Wire() {}

    static byte[] forwardBackward(String modelId, int seqId, List<Datum> data, LossFn loss, Map<String, Double> config, boolean forwardOnly) {
        var b = ForwardBackwardRequest.newBuilder().setModelId(modelId).setSeqId(seqId).setLossFn(loss.wire()).putAllLossFnConfig(config)
                .setForwardOnly(forwardOnly);
        for (Datum d : data) {
            var datum = WireDatum.newBuilder()
                    .addModelInput(Chunk.newBuilder().setEncodedText(EncodedTextChunk.newBuilder().setTokens(int32(d.inputTokens()))))
                    .putLossFnInputs("target_tokens", int64Tensor(d.targetTokens()));
            putFloats(datum, "logprobs", d.samplerLogprobs());
            putFloats(datum, "advantages", d.advantages());
            putFloats(datum, "weights", d.weights());
            b.addData(datum);
        }
        return b.build().toByteArray();
    }

    static ForwardBackwardResult forwardBackwardResult(byte[] body) {
        ForwardBackwardOutput out = parse(() -> ForwardBackwardOutput.parseFrom(body), "ForwardBackwardOutput");
        List<Map<String, float[]>> outputs = new ArrayList<>();
        for (var record : out.getLossFnOutputsList()) {
            int n = Math.toIntExact(record.getNumDatums());
            int first = outputs.size();
            for (int i = 0; i < n; i++) {
                outputs.add(new LinkedHashMap<>());
            }
            for (var field : record.getFieldsMap().entrySet()) {
                List<float[]> split = split(field.getKey(), field.getValue(), n);
                for (int i = 0; i < n; i++) {
                    outputs.get(first + i).put(field.getKey(), split.get(i));
                }
            }
        }
        return new ForwardBackwardResult(out.getLossFnOutputType(), outputs, Map.copyOf(out.getMetricsMap()));
    }

    static List<Sample> samples(byte[] body) {
        SampleResponse out = parse(() -> SampleResponse.parseFrom(body), "SampleResponse");
        List<Sample> samples = new ArrayList<>();
        for (SampledSequence s : out.getSequencesList()) {
            int[] tokens = ints(s.getTokens());
            float[] logprobs = s.hasLogprobs() ? floats(s.getLogprobs()) : null;
            if (logprobs != null && logprobs.length != tokens.length) {
                throw new IllegalStateException("a sampled sequence of " + tokens.length + " tokens came with " + logprobs.length + " logprobs");
            }
            samples.add(new Sample(tokens, logprobs, s.getStopReason() == StopReason.STOP_REASON_LENGTH ? "length" : "stop"));
        }
        return samples;
    }

    private static List<float[]> split(String name, BatchedTensor t, int n) {
        if (t.getDtype() != DType.DTYPE_FLOAT32) {
            throw new IllegalStateException("output '" + name + "' is " + t.getDtype() + ", expected float32");
        }
        ByteBuffer offsets = t.getOffsets().asReadOnlyByteBuffer().order(ByteOrder.LITTLE_ENDIAN);
        if (offsets.remaining() != 8 * (n + 1)) {
            throw new IllegalStateException("output '" + name + "' has " + offsets.remaining() / 8 + " offsets for " + n + " datums");
        }
        ByteString data = t.getData();
        List<float[]> split = new ArrayList<>(n);
        long start = offsets.getLong();
        for (int i = 0; i < n; i++) {
            long end = offsets.getLong();
            split.add(floats(data.substring(Math.toIntExact(start), Math.toIntExact(end))));
            start = end;
        }
        return split;
    }

    private static void putFloats(WireDatum.Builder datum, String name, float[] values) {
        if (values != null) {
            ByteBuffer b = ByteBuffer.allocate(4 * values.length).order(ByteOrder.LITTLE_ENDIAN);
            for (float v : values) {
                b.putFloat(v);
            }
            datum.putLossFnInputs(name, Tensor.newBuilder().setDense(ByteString.copyFrom(b.array())).setDtype(DType.DTYPE_FLOAT32).addShape(values.length).build());
        }
    }

    private static Tensor int64Tensor(int[] values) {
        ByteBuffer b = ByteBuffer.allocate(8 * values.length).order(ByteOrder.LITTLE_ENDIAN);
        for (int v : values) {
            b.putLong(v);
        }
        return Tensor.newBuilder().setDense(ByteString.copyFrom(b.array())).setDtype(DType.DTYPE_INT64).addShape(values.length).build();
    }

    static ByteString int32(int[] values) {
        ByteBuffer b = ByteBuffer.allocate(4 * values.length).order(ByteOrder.LITTLE_ENDIAN);
        for (int v : values) {
            b.putInt(v);
        }
        return ByteString.copyFrom(b.array());
    }

    static int[] ints(ByteString bytes) {
        var b = bytes.asReadOnlyByteBuffer().order(ByteOrder.LITTLE_ENDIAN).asIntBuffer();
        int[] out = new int[b.remaining()];
        b.get(out);
        return out;
    }

    static float[] floats(ByteString bytes) {
        var b = bytes.asReadOnlyByteBuffer().order(ByteOrder.LITTLE_ENDIAN).asFloatBuffer();
        float[] out = new float[b.remaining()];
        b.get(out);
        return out;
    }

    private interface Parse<T> {
        T parse() throws InvalidProtocolBufferException;
    }

    private static <T> T parse(Parse<T> p, String what) {
        try {
            return p.parse();
        } catch (InvalidProtocolBufferException e) {
            throw new IllegalStateException("the engine's " + what + " is not valid protobuf: " + e.getMessage(), e);
        }
    }
}
