package ai.openalice.rl.agent.external;

import ai.openalice.rl.agent.loop.Episode;
import ai.openalice.rl.agent.loop.LoopConfig;
import ai.openalice.rl.events.RolloutCompleted;
import ai.openalice.rl.events.Termination;
import ai.openalice.rl.events.Trajectory;
import ai.openalice.rl.events.Turn;
import ai.openalice.rl.model.chat.ChatTemplate;
import ai.openalice.rl.model.tokenizer.Tokenizer;
import ai.openalice.rl.policy.Policy;
import ai.openalice.rl.sandbox.ExecResult;
import ai.openalice.rl.sandbox.Sandbox;
import ai.openalice.rl.sandbox.SandboxSpec;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * One episode played by an agent program instead of the built-in loop. {@link #open} prepares its
 * folder (the endpoint's socket and the problem statement, mounted read-only at
 * {@link AgentProgram#SOCKET_DIR}) and its key; {@link #spec} is the sandbox to make; {@link #run}
 * runs the program there until it exits or the episode's time is up, and makes the episode of what
 * it did: the workspace's diff is the patch, the turns are its recorded calls. The program sees
 * {@code OPENAI_BASE_URL}, {@code OPENAI_API_KEY}, {@code ALICE_RL_MODEL}, {@code ALICE_RL_PROBLEM}
 * (the file holding the problem statement) and, when it has one, {@code ALICE_RL_AGENT_ENV} (its own
 * Python environment, mounted where it was built; its {@code lib} on {@code LD_LIBRARY_PATH}) and
 * {@code ALICE_RL_AGENT_FILES} (its own files' folder).
 */
public final class ProgramEpisode implements AutoCloseable {

    /**
     * The program: a shell command run at the workspace, the Python environment it runs in, and a
     * folder of its own files (each null: none), both mounted read-only where they are.
     */
    public record Program(String command, Path environment, Path files) {
        public Program(String command, Path environment) {
            this(command, environment, null);
        }
    }

    /** What every episode shares: the endpoint, where episode folders go, and how the model's chat is laid out. */
    public record Setup(AgentEndpoint endpoint, Path folders, ChatTemplate template, Tokenizer tokenizer, Map<String, Object> extra, String model) {}

    private static final String SOCKET = "policy.sock";

    private final Setup setup;
    private final Program program;
    private final LoopConfig budget;
    private final RecordingChat chat;
    private final Path folder;
    private final String key;
    private final SocketBridge bridge;

    private ProgramEpisode(Setup setup, Program program, LoopConfig budget, RecordingChat chat, Path folder, String key, SocketBridge bridge) {
        this.setup = setup;
        this.program = program;
        this.budget = budget;
        this.chat = chat;
        this.folder = folder;
        this.key = key;
        this.bridge = bridge;
    }

    /** An episode of {@code problem} for {@code program}, its calls answered by {@code policy} within {@code budget}. */
    public static ProgramEpisode open(Setup setup, Program program, String problem, Policy policy, LoopConfig budget) {
        try {
            Files.createDirectories(setup.folders());
            setup.folders().toFile().setExecutable(true, false); // sandbox users pass through it to their episode's folder
            Path folder = Files.createTempDirectory(setup.folders(), "episode-");
            folder.toFile().setReadable(true, false);
            folder.toFile().setExecutable(true, false);
            Path problemFile = Files.writeString(folder.resolve("problem.md"), problem);
            problemFile.toFile().setReadable(true, false);
            var chat = new RecordingChat(setup.template(), setup.tokenizer(), setup.extra(), policy,
                    new RecordingChat.Budget(budget.maxSteps(), budget.maxContextTokens()));
            var sampling = new RecordingChat.Sampling(budget.maxTokensPerTurn(), budget.temperature(), budget.topP(), null, budget.seed());
            String key = setup.endpoint().open(new AgentEndpoint.Episode(chat, setup.model(), sampling));
            return new ProgramEpisode(setup, program, budget, chat, folder, key, SocketBridge.open(folder.resolve(SOCKET), setup.endpoint().port()));
        } catch (IOException e) {
            throw new UncheckedIOException("the agent program's episode folder under " + setup.folders() + " cannot be made: " + e.getMessage(), e);
        }
    }

    /** {@code spec} with the episode's folder, the program's environment and its variables. */
    public SandboxSpec spec(SandboxSpec spec) {
        var prepared = AgentProgram.prepare(spec, folder, key, setup.model());
        var env = new LinkedHashMap<>(prepared.env());
        env.put("ALICE_RL_PROBLEM", AgentProgram.SOCKET_DIR + "/problem.md");
        var mounts = new ArrayList<>(prepared.mounts());
        if (program.environment() != null) {
            env.put("ALICE_RL_AGENT_ENV", program.environment().toString());
            mounts.add(new SandboxSpec.ReadOnlyMount(program.environment(), program.environment().toString()));
        }
        if (program.files() != null) {
            env.put("ALICE_RL_AGENT_FILES", program.files().toString());
            mounts.add(new SandboxSpec.ReadOnlyMount(program.files(), program.files().toString()));
        }
        return prepared.withEnv(env).withMounts(List.copyOf(mounts));
    }

    /** Runs the program in {@code sandbox} (made from {@link #spec}) and makes the episode of it. */
    public Episode run(Sandbox sandbox) {
        long t0 = System.nanoTime();
        String command = program.environment() == null ? program.command()
                : "export LD_LIBRARY_PATH=\"$ALICE_RL_AGENT_ENV/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}\"\n" + program.command();
        ExecResult r = sandbox.exec(AgentProgram.command(SOCKET, command), budget.episodeTimeout());
        String patch = sandbox.diff();
        long wallMs = (System.nanoTime() - t0) / 1_000_000;
        List<Turn> turns = chat.turns().turns();
        long prompt = 0, completion = 0, policyMs = 0, toolMs = 0;
        for (Turn t : turns) {
            prompt += t.promptDeltaTokenIds().size();
            completion += t.completionTokenIds().size();
            policyMs += t.policyMs();
            toolMs += t.toolMs();
        }
        var stats = new RolloutCompleted.Stats(turns.size(), prompt, completion, wallMs, policyMs, toolMs);
        var trajectory = new Trajectory(turns);
        if (turns.isEmpty() && !r.ok() && chat.spent().isEmpty()) { // a program refused its first call for the budget ended by it
            return new Episode(trajectory, Termination.INFRA_ERROR, new RolloutCompleted.Failure("agent_program", (r.timedOut()
                    ? "timed out after " + budget.episodeTimeout().toSeconds() + " s" : "exited " + r.exitCode()) + " without calling the policy: "
                    + tail(r.stderr().isBlank() ? r.stdout() : r.stderr())), patch, stats);
        }
        Termination end = r.timedOut() ? Termination.TIMEOUT : chat.spent().map(s -> switch (s) {
            case CALLS -> Termination.MAX_STEPS;
            case CONTEXT -> Termination.MAX_CONTEXT;
        }).orElse(Termination.SUBMITTED);
        return new Episode(trajectory, end, null, patch, stats);
    }

    /** The calls recorded so far. */
    public RecordingChat chat() {
        return chat;
    }

    private static String tail(String s) {
        return s.length() > 2000 ? "…" + s.substring(s.length() - 2000) : s;
    }

    @Override
    public void close() {
        setup.endpoint().close(key);
        try {
            bridge.close();
            try (var files = Files.list(folder)) {
                for (Path f : files.toList()) {
                    Files.deleteIfExists(f);
                }
            }
            Files.deleteIfExists(folder);
        } catch (IOException e) {
            // a folder left behind under setup.folders(); the next start does not read it
        }
    }
}
