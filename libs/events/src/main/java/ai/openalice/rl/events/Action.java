package ai.openalice.rl.events;

import com.fasterxml.jackson.databind.node.ObjectNode;

/** The parsed tool call of one turn; {@code parseError} says why a completion could not be parsed. */
public record Action(String tool, ObjectNode args, String parseError) {}
