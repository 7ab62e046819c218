package ai.openalice.rl.agent.tools;

import ai.openalice.rl.sandbox.ExecResult;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.time.Duration;

/** {@code bash}: runs a command at the workspace root with a per-call timeout; output capped, the cap said. */
public final class BashTool implements Tool {

    @Override
    public String name() {
        return "bash";
    }

    @Override
    public String usage() {
        return "bash(command, timeout?) — run a shell command at the repository root; timeout in seconds.";
    }

    @Override
    public ObjectNode parameters() {
        return Tools.schema("""
                {"type": "object", "properties": {"command": {"type": "string", "description": "the shell command"},
                 "timeout": {"type": "integer", "description": "seconds"}}, "required": ["command"]}""");
    }

    @Override
    public Observation run(ObjectNode args, ToolContext ctx) {
        String command = Args.required(args, name(), "command");
        if (command.isBlank()) {
            return Observation.error("bash: the command is empty");
        }
        Integer seconds = Args.optionalInt(args, name(), "timeout");
        Duration timeout = seconds == null ? ctx.defaultTimeout() : Duration.ofSeconds(Math.max(1, seconds));
        if (timeout.compareTo(ctx.maxTimeout()) > 0) {
            timeout = ctx.maxTimeout();
        }
        ExecResult r = ctx.sandbox().exec(command, timeout);
        return new Observation(format(r, timeout), !r.ok(), false);
    }

    static String format(ExecResult r, Duration timeout) {
        var sb = new StringBuilder();
        if (r.timedOut()) {
            sb.append("[the command timed out after ").append(timeout.toSeconds()).append(" s and was killed]\n");
        } else {
            sb.append("[exit code ").append(r.exitCode()).append("]\n");
        }
        if (!r.stdout().isEmpty()) {
            sb.append(r.stdout());
            if (!r.stdout().endsWith("\n")) {
                sb.append('\n');
            }
        }
        if (r.stdoutTruncated()) {
            sb.append("[stdout was cut: only its beginning and end are shown]\n");
        }
        if (!r.stderr().isEmpty()) {
            sb.append("[stderr]\n").append(r.stderr());
            if (!r.stderr().endsWith("\n")) {
                sb.append('\n');
            }
        }
        if (r.stderrTruncated()) {
            sb.append("[stderr was cut: only its beginning and end are shown]\n");
        }
        return sb.toString();
    }
}
