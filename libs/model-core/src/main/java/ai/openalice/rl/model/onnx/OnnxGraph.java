package ai.openalice.rl.model.onnx;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * An ONNX graph under construction: nodes, float/int64 initializers, typed inputs and outputs.
 * {@link OnnxWriter} encodes it as an ONNX ModelProto.
 */
public final class OnnxGraph {
    /** ONNX TensorProto.DataType values used here. */
    public static final int FLOAT = 1;
    public static final int INT64 = 7;
    public static final int BOOL = 9;

    final String name;
    final List<Node> nodes = new ArrayList<>();
    final Map<String, Initializer> initializers = new LinkedHashMap<>();
    final List<ValueInfo> inputs = new ArrayList<>();
    final List<ValueInfo> outputs = new ArrayList<>();
    private int counter;

    public OnnxGraph(String name) {
        this.name = name;
    }

    /** An attribute of a node: one int, one float, a list of ints, or a tensor. */
    public sealed interface Attribute {
        String name();

        record Int(String name, long value) implements Attribute {}

        record Float(String name, float value) implements Attribute {}

        record Ints(String name, long[] values) implements Attribute {}

        record Tensor(String name, Initializer value) implements Attribute {}
    }

    record Node(String opType, List<String> inputs, List<String> outputs, List<Attribute> attributes) {}

    /** A constant tensor: float or int64 values with dims. */
    public record Initializer(String name, int dataType, long[] dims, float[] floats, long[] longs) {
        long elements() {
            long n = 1;
            for (long d : dims) {
                n *= d;
            }
            return n;
        }
    }

    /** A graph input or output: element type and dims (a String for a symbolic dim, a Long for a fixed one). */
    record ValueInfo(String name, int elemType, Object[] dims) {}

    public void input(String name, int elemType, Object... dims) {
        inputs.add(new ValueInfo(name, elemType, dims));
    }

    public void output(String name, int elemType, Object... dims) {
        outputs.add(new ValueInfo(name, elemType, dims));
    }

    public String floats(String name, long[] dims, float[] values) {
        initializers.put(name, new Initializer(name, FLOAT, dims, values, null));
        return name;
    }

    public String longs(String name, long... values) {
        initializers.put(name, new Initializer(name, INT64, new long[] {values.length}, null, values));
        return name;
    }

    /** A scalar int64 constant. */
    public String scalar(String name, long value) {
        initializers.put(name, new Initializer(name, INT64, new long[0], null, new long[] {value}));
        return name;
    }

    /** A scalar float constant. */
    public String scalar(String name, float value) {
        initializers.put(name, new Initializer(name, FLOAT, new long[0], new float[] {value}, null));
        return name;
    }

    /** Adds a node with one output (named after the op) and returns that output's name. */
    public String op(String opType, List<String> in, Attribute... attrs) {
        String out = opType.toLowerCase() + "_" + (counter++);
        nodes.add(new Node(opType, List.copyOf(in), List.of(out), List.of(attrs)));
        return out;
    }

    /** Adds a node whose outputs are named by the caller. */
    public void opTo(String opType, List<String> in, List<String> out, Attribute... attrs) {
        nodes.add(new Node(opType, List.copyOf(in), List.copyOf(out), List.of(attrs)));
    }

    /** Adds a node with {@code n} fresh outputs and returns their names. */
    public List<String> opN(String opType, List<String> in, int n, Attribute... attrs) {
        var outs = new ArrayList<String>();
        for (int i = 0; i < n; i++) {
            outs.add(opType.toLowerCase() + "_" + (counter++));
        }
        nodes.add(new Node(opType, List.copyOf(in), outs, List.of(attrs)));
        return outs;
    }
}
