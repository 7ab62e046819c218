package ai.openalice.rl.events;

import com.fasterxml.jackson.databind.node.ObjectNode;

/**
 * The parsed tool call of one turn; {@code parseError} says why a completion could not be parsed,
 * {@code toolError} that the tool refused or failed the call (a missing file, an {@code old_str}
 * that does not occur, an unknown tool — not a test run that fails, which is information).
 */
public record Action(String tool, ObjectNode args, String parseError, boolean toolError) {

    public Action(String tool, ObjectNode args, String parseError) {
        this(tool, args, parseError, false);
    }

    /** The call did not do what was asked: unparsable, or refused by the tool. */
    public boolean failed() {
        return parseError != null || toolError;
    }
}
