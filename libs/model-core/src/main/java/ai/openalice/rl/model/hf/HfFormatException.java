package ai.openalice.rl.model.hf;

/** A model folder, weight file or adapter that cannot be used as it is: the message names the file, field or tensor at fault. */
public class HfFormatException extends IllegalArgumentException {
    public HfFormatException(String message) {
        super(message);
    }
}
