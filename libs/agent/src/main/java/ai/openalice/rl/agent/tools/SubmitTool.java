package ai.openalice.rl.agent.tools;

import com.fasterxml.jackson.databind.node.ObjectNode;

/** {@code submit}: ends the episode; the patch is the workspace diff. */
public final class SubmitTool implements Tool {

    @Override
    public String name() {
        return "submit";
    }

    @Override
    public String usage() {
        return "submit() — finish: your changes to the repository are the answer.";
    }

    @Override
    public ObjectNode parameters() {
        return Tools.schema("""
                {"type": "object", "properties": {}}""");
    }

    @Override
    public Observation run(ObjectNode args, ToolContext ctx) {
        return Observation.end("Submitted.");
    }
}
