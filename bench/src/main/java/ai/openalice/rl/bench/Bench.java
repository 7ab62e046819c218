package ai.openalice.rl.bench;

import java.util.Collection;
import java.util.Map;
import java.util.TreeMap;
import org.openjdk.jmh.results.RunResult;
import org.openjdk.jmh.runner.Runner;
import org.openjdk.jmh.runner.options.OptionsBuilder;

/**
 * Runs a benchmark class with JMH and prints its figures: {@code java -jar bench/target/benchmarks.jar rl-core}.
 * Each suite prints the derived throughput and the ratio to its in-run baseline.
 */
public final class Bench {
    private Bench() {}

    public static void main(String[] args) throws Exception {
        String suite = args.length == 0 ? "rl-core" : args[0];
        switch (suite) {
            case "rl-core" -> rlCore();
            case "sandbox" -> SandboxBench.run(args);
            case "cluster-sandbox" -> ClusterSandboxBench.run(args);
            case "deploy-loop" -> DeployLoopBench.run(args);
            case "verifier" -> VerifierBench.run(args);
            case "inference" -> InferenceBench.run(args);
            case "agent" -> AgentLoopBench.run(args);
            case "agent-program" -> AgentProgramBench.run(args);
            case "swebench-program" -> SweBenchProgram.run(args);
            case "rubric" -> RubricBench.run(args);
            case "dispatcher" -> DispatcherBench.run(args);
            case "trainer" -> TrainerBench.run(args);
            case "hf-model" -> HfModelBench.run(args);
            case "learner-memory" -> LearnerMemoryBench.run(args);
            case "learner-memory-child" -> LearnerMemoryBench.child(args);
            case "hf-loop" -> HfLoopBench.run(args);
            case "sampler" -> SamplerBench.run(args);
            case "loop" -> LoopBench.run(args);
            case "soak" -> SoakBench.run(args);
            case "soak-report" -> SoakBench.report(args);
            case "chaos" -> ChaosBench.run(args);
            case "tinker" -> TinkerBench.run(args);
            case "swebench-verified" -> SweBenchVerifiedBench.run(args);
            default -> {
                System.err.println("unknown suite '" + suite + "'; known: rl-core, sandbox, verifier, inference, agent, agent-program, swebench-program, rubric, dispatcher, trainer, learner-memory, hf-model, hf-loop, sampler, loop, soak, chaos, tinker, swebench-verified, cluster-sandbox, deploy-loop");
                System.exit(2);
            }
        }
    }

    private static void rlCore() throws Exception {
        Collection<RunResult> results = new Runner(new OptionsBuilder().include(RlCoreBench.class.getName()).build()).run();
        Map<String, Double> msPerOp = new TreeMap<>();
        for (RunResult r : results) {
            String name = r.getParams().getBenchmark();
            msPerOp.put(name.substring(name.lastIndexOf('.') + 1), r.getPrimaryResult().getScore());
        }
        double step = msPerOp.get("step");
        double bare = msPerOp.get("bareTokenLoop");
        System.out.println();
        System.out.printf("rl-core step: %d trajectories x %d tokens = %,d tokens%n",
                RlCoreBench.TRAJECTORIES, RlCoreBench.TOKENS_PER_TRAJECTORY, RlCoreBench.TOKENS);
        System.out.printf("  filter + LOO + broadcast + loss/grad : %8.2f ms/step  %,8.1f M tokens/s (target >= 50)%n",
                step, RlCoreBench.TOKENS / step / 1e3);
        System.out.printf("  baseline: bare exp loop              : %8.2f ms/pass  %,8.1f M tokens/s%n",
                bare, RlCoreBench.TOKENS / bare / 1e3);
        System.out.printf("  ratio step / baseline time           : %8.2fx%n", step / bare);
    }
}
