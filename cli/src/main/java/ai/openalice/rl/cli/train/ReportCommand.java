package ai.openalice.rl.cli.train;

import java.nio.file.Path;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** {@code alice-rl report}: the HTML report of a training run, any time (also written at the end of {@code train}). */
@Command(name = "report", mixinStandardHelpOptions = true, description = "Write the HTML report (PNG plots, probes, trajectories) of a training run.")
public final class ReportCommand implements Callable<Integer> {
    @Spec
    CommandSpec spec;

    @Option(names = "--state", paramLabel = "DIR", description = "State folder of the run (default: .alice-rl/train in the repository).")
    Path state;

    @Override
    public Integer call() throws Exception {
        Path root = Path.of(System.getProperty("alice.root", ".")).toAbsolutePath().normalize();
        Path s = state != null ? state : root.resolve(".alice-rl/train");
        spec.commandLine().getOut().println("report: " + Report.write(s.toAbsolutePath()));
        spec.commandLine().getOut().flush();
        return 0;
    }
}
