package ai.openalice.rl.agent.tools;

import com.fasterxml.jackson.databind.node.ObjectNode;

/**
 * One tool the agent can call. Bad arguments and failed operations become an {@link Observation}
 * the model can act on; only an infrastructure failure ({@code SandboxException}) escapes.
 */
public interface Tool {

    String name();

    /** What the tool does and its arguments, for the system prompt. */
    String usage();

    /** The arguments as a JSON Schema object, for templates and servers that take OpenAI tool definitions. */
    ObjectNode parameters();

    Observation run(ObjectNode args, ToolContext context);
}
