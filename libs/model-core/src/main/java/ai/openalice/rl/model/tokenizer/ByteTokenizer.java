package ai.openalice.rl.model.tokenizer;

import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.OptionalInt;

/**
 * The built-in model's tokenizer: one token per UTF-8 byte (ids 0–255) and special tokens after
 * them for roles, tool calls and control. Any text round-trips; no vocabulary to train.
 */
public final class ByteTokenizer implements Tokenizer {
    public static final List<String> SPECIALS = List.of("<|pad|>", "<|bos|>", "<|eos|>", "<|system|>", "<|user|>", "<|assistant|>",
            "<|tool_call|>", "<|tool_result|>", "<|end|>");

    @Override
    public String name() {
        return "byte-v1";
    }

    @Override
    public int vocabSize() {
        return 256 + SPECIALS.size();
    }

    @Override
    public int[] encode(String text) {
        byte[] bytes = text.getBytes(StandardCharsets.UTF_8);
        int[] ids = new int[bytes.length];
        for (int i = 0; i < bytes.length; i++) {
            ids[i] = bytes[i] & 0xff;
        }
        return ids;
    }

    @Override
    public String decode(int[] ids) {
        var out = new StringBuilder();
        var bytes = new ByteArrayOutputStream();
        for (int id : ids) {
            if (id >= 0 && id < 256) {
                bytes.write(id);
            } else {
                flush(bytes, out);
                out.append(id >= 256 && id < vocabSize() ? SPECIALS.get(id - 256) : "<|unk:" + id + "|>");
            }
        }
        flush(bytes, out);
        return out.toString();
    }

    private static void flush(ByteArrayOutputStream bytes, StringBuilder out) {
        if (bytes.size() == 0) {
            return;
        }
        try {
            out.append(StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPLACE)
                    .onUnmappableCharacter(CodingErrorAction.REPLACE).decode(ByteBuffer.wrap(bytes.toByteArray())));
        } catch (CharacterCodingException e) {
            throw new IllegalStateException(e);
        }
        bytes.reset();
    }

    @Override
    public OptionalInt special(String name) {
        int i = SPECIALS.indexOf(name);
        return i < 0 ? OptionalInt.empty() : OptionalInt.of(256 + i);
    }

    @Override
    public List<String> specials() {
        return SPECIALS;
    }
}
