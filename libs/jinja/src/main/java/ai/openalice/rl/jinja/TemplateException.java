package ai.openalice.rl.jinja;

/** A chat template that cannot be parsed or rendered; the message names the template line and what is wrong. */
public final class TemplateException extends RuntimeException {
    public TemplateException(String message) {
        super(message);
    }

    static TemplateException at(int line, String message) {
        return new TemplateException("line " + line + ": " + message);
    }
}
