package ai.openalice.rl.agent.format;

import ai.openalice.rl.agent.tools.Tool;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.List;

/** How tool calls are written in a model's completion, and how the tools are described to it. */
public interface ToolCallFormat {

    String name();

    /** The part of the system prompt that teaches the format and lists the tools. */
    String describe(List<Tool> tools);

    /** The call in a completion, or why there is none the format recognises. */
    Parsed parse(String completion);

    /** Writes a call in this format (scripted policies use it to speak like a model). */
    String render(String tool, ObjectNode args);

    /** The result of reading a completion. */
    sealed interface Parsed {
        /** A tool call. */
        record Call(String tool, ObjectNode args) implements Parsed {}

        /** Not a call in this format: {@code reason} becomes the observation. */
        record Unparsable(String reason) implements Parsed {}
    }
}
