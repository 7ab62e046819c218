package ai.openalice.rl.cli;

import ai.openalice.rl.cli.train.CompareCommand;
import ai.openalice.rl.cli.train.ReportCommand;
import ai.openalice.rl.cli.train.RolloutCommand;
import ai.openalice.rl.cli.train.TrainCommand;
import picocli.CommandLine;
import picocli.CommandLine.Command;

/** Entry point of {@code ./alice-rl}. */
@Command(name = "alice-rl", mixinStandardHelpOptions = true, version = "alice-rl 0.1.0-SNAPSHOT",
        description = "Always-on agentic reinforcement learning for coding agents.",
        subcommands = {TasksCommand.class, VerifyCommand.class, ModelCommand.class, SubmitCommand.class, EvalCommand.class, AuthCommand.class,
                RolloutCommand.class,
                CompareCommand.class, TrainCommand.class, ReportCommand.class})
public final class AliceRl {

    public static void main(String[] args) {
        System.exit(run(args));
    }

    static int run(String... args) {
        return new CommandLine(new AliceRl()).execute(args);
    }
}
