package ai.openalice.rl.model.tokenizer;

import java.util.List;
import java.util.OptionalInt;
import java.util.stream.Stream;

/** Text ↔ token ids, with named special tokens (roles, tool calls) that never come out of ordinary text. */
public interface Tokenizer {

    /** An identifier recorded in checkpoint manifests, e.g. {@code byte-v1}. */
    String name();

    int vocabSize();

    /**
     * Ids of text. The built-in tokenizer never makes a special token of text; a HuggingFace
     * tokenizer matches its added tokens in text (as transformers and vLLM do when they tokenize a
     * rendered chat template).
     */
    int[] encode(String text);

    /** Text of the ids; specials are rendered as their names. */
    String decode(int[] ids);

    /** The id of a special token such as {@code <|eos|>}. */
    OptionalInt special(String name);

    /** The special tokens' names, in id order. */
    List<String> specials();

    /**
     * The tokens that end a completion (kept in it, so the learner learns to emit them): the built-in
     * {@code <|eos|>} and {@code <|end|>}; a HuggingFace model's end-of-sequence ids.
     */
    default int[] endTokens() {
        return Stream.of("<|eos|>", "<|end|>").map(this::special).filter(OptionalInt::isPresent).mapToInt(OptionalInt::getAsInt)
                .toArray();
    }

    /** The id of a special token, or an error naming the ones this tokenizer has. */
    default int requireSpecial(String name) {
        return special(name).orElseThrow(() -> new IllegalArgumentException(name() + " has no special token " + name + "; it has " + specials()));
    }
}
