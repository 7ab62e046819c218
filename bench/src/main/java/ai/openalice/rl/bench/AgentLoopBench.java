package ai.openalice.rl.bench;

import ai.openalice.rl.agent.format.CompactFormat;
import ai.openalice.rl.agent.loop.AgentLoop;
import ai.openalice.rl.agent.loop.Episode;
import ai.openalice.rl.agent.loop.LoopConfig;
import ai.openalice.rl.agent.tools.Observation;
import ai.openalice.rl.agent.tools.Tool;
import ai.openalice.rl.agent.tools.ToolContext;
import ai.openalice.rl.agent.tools.Tools;
import ai.openalice.rl.events.AgentTask;
import ai.openalice.rl.events.task.Limits;
import ai.openalice.rl.events.task.WorkspaceSpec;
import ai.openalice.rl.model.tokenizer.ByteTokenizer;
import ai.openalice.rl.policy.Completion;
import ai.openalice.rl.policy.CompletionRequest;
import ai.openalice.rl.policy.Policy;
import ai.openalice.rl.sandbox.Sandbox;
import ai.openalice.rl.sandbox.SandboxSpec;
import ai.openalice.rl.sandbox.WorkspaceSource;
import ai.openalice.rl.sandbox.local.LocalSandboxConfig;
import ai.openalice.rl.sandbox.local.LocalSandboxProvider;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

/**
 * The agent loop's own cost per turn — everything but the policy and the tool: building the
 * context, parsing the call, recording the turn — with a zero-latency scripted policy and a tool
 * that does nothing; and whole episodes per minute with the same policy in real local sandboxes.
 */
final class AgentLoopBench {
    private AgentLoopBench() {}

    /** A tool that returns at once without touching the sandbox. */
    static class Noop implements Tool {
        public String name() {
            return "noop";
        }

        public String usage() {
            return "noop() — nothing";
        }

        public ObjectNode parameters() {
            return JsonNodeFactory.instance.objectNode().put("type", "object");
        }

        public Observation run(ObjectNode args, ToolContext ctx) {
            return Observation.ok("ok");
        }
    }

    /** A tool that runs {@code true} in the sandbox: what every shell-running tool pays per turn. */
    static final class ExecTrue extends Noop {
        @Override
        public Observation run(ObjectNode args, ToolContext ctx) {
            var r = ctx.sandbox().exec("true", Duration.ofSeconds(30));
            return r.ok() ? Observation.ok("ok") : Observation.ok("failed");
        }
    }

    static void run(String[] args) throws Exception {
        var tok = new ByteTokenizer();
        String text = "think: checking\ncall: noop\n";
        int[] ids = tok.encode(text);
        Policy instant = new Policy() {
            public String name() {
                return "instant";
            }

            public Completion complete(CompletionRequest r) {
                return new Completion(ids, new double[ids.length], text, Completion.FinishReason.STOP, 0);
            }
        };
        var tools = new Tools(List.of(new Noop()));
        var loop = new AgentLoop(instant, tok, new CompactFormat(), tools);
        var task = new AgentTask("bench", 1, null, "Nothing is broken.", new WorkspaceSpec.Dir("/tmp"), new Limits(50, null, 300, 300));
        var cfg = LoopConfig.defaults(50, 1 << 20);
        Path root = Path.of("/tmp", "alice-rl-bench-agent");
        var provider = new LocalSandboxProvider(LocalSandboxConfig.defaults().withRoot(root));
        Path ws = Files.createTempDirectory("bench-agent-ws");
        Files.writeString(ws.resolve("a.py"), "print(1)\n");
        var spec = SandboxSpec.of(new WorkspaceSource.Dir(ws));

        // Loop overhead: one sandbox, many episodes of 50 turns (diff() at each episode end is excluded).
        try (Sandbox s = provider.create(spec)) {
            for (int i = 0; i < 20; i++) {
                loop.run(task, s, cfg);
            }
            long overheadNs = 0;
            long turns = 0;
            int episodes = 200;
            for (int i = 0; i < episodes; i++) {
                long t0 = System.nanoTime();
                Episode e = loop.run(task, s, cfg);
                long wall = System.nanoTime() - t0;
                long diff = timeDiff(s);
                overheadNs += wall - diff - (e.stats().policyTimeMs() + e.stats().toolTimeMs()) * 1_000_000;
                turns += e.stats().turns();
            }
            System.out.printf("%nagent loop, zero-latency policy and a no-op tool: %d episodes x 50 turns%n", episodes);
            System.out.printf("  loop overhead per turn (wall - policy - tool - final diff): %.3f ms (target < 1 ms)%n",
                    overheadNs / 1e6 / turns);
        }
        // Whole episodes, each in a fresh local sandbox (create + 50 turns + diff + close).
        System.out.printf("  episodes per minute, fresh local sandbox each: %.0f%n", episodesPerMinute(loop, provider, spec, task, cfg));
        // The same episodes with a tool that runs a command at every turn.
        var execLoop = new AgentLoop(instant, tok, new CompactFormat(), new Tools(List.of(new ExecTrue())));
        System.out.printf("  episodes per minute, each turn running `true` in the sandbox: %.1f%n",
                episodesPerMinute(execLoop, provider, spec, task, cfg));
    }

    /** 30 whole episodes of {@code loop}, each in a fresh sandbox of {@code spec}, as episodes per minute. */
    private static double episodesPerMinute(AgentLoop loop, LocalSandboxProvider provider, SandboxSpec spec, AgentTask task, LoopConfig cfg) {
        int n = 30;
        long t0 = System.nanoTime();
        for (int i = 0; i < n; i++) {
            try (Sandbox s = provider.create(spec)) {
                loop.run(task, s, cfg);
            }
        }
        return n / ((System.nanoTime() - t0) / 60e9);
    }

    private static long timeDiff(Sandbox s) {
        long t0 = System.nanoTime();
        s.diff();
        return System.nanoTime() - t0;
    }
}
