package ai.openalice.rl.runner.config;

import ai.openalice.rl.events.RunProfile;
import ai.openalice.rl.harness.PythonEnvironments;
import io.smallrye.config.ConfigMapping;
import io.smallrye.config.WithDefault;
import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;

/** The sandbox-runner's settings ({@code runner.*}). */
@ConfigMapping(prefix = "runner")
public interface RunnerConfig {

    /** This runner's name in leases and logs; defaults to host name and pid. */
    Optional<String> id();

    /**
     * Which policy acts: {@code http} (the inference service or an OpenAI-compatible server),
     * {@code tinker} (the Tinker engine that trains it, at the sampler weights each checkpoint names),
     * {@code oracle} or {@code random}.
     */
    @WithDefault("http")
    PolicyKind policy();

    /** {@code runner.policy}; a value other than these stops start-up, naming the allowed ones. */
    enum PolicyKind { HTTP, TINKER, ORACLE, RANDOM }

    Tinker tinker();

    /**
     * The Tinker engine of {@code runner.policy=tinker} — the one {@code trainer.learner=tinker}
     * trains on: the base model is sampled until a checkpoint names sampler weights, then each
     * checkpoint's. Waits for an engine away follow {@code policy-outage-grace}.
     */
    interface Tinker {
        /** The engine's base URL (e.g. http://skyrl-tinker:8000). */
        Optional<URI> url();

        /** A file holding the API key the engine wants (sent as X-API-Key); none: the engine takes any. */
        Optional<Path> apiKeyFile();

        /** The base model as the engine loads it: the trainer's {@code trainer.tinker.base-model}. */
        Optional<String> baseModel();
    }

    /** {@code runner.tool-call-format}. */
    enum CallFormat { COMPACT, JSON, LLAMA3_JSON }

    /** {@code runner.system-prompt}. */
    enum SystemPrompt { FULL, BRIEF }

    /** {@code runner.sandbox-backend}. */
    enum SandboxBackend { LOCAL, KUBERNETES }

    /** Base URL of the OpenAI-compatible completions server, for {@code policy=http}. */
    @WithDefault("http://127.0.0.1:8085")
    String inferenceUrl();

    /**
     * How long a completion request waits out a policy server that cannot be reached or answers
     * 503 (a restart, a swap) before the episode ends in an infrastructure error: a routine restart
     * costs a wait, not one of the rollout's attempts.
     */
    @WithDefault("PT60S")
    Duration policyOutageGrace();

    /**
     * How long making a sandbox waits out a back end that does not answer or cannot start one (the
     * Kubernetes API restarting, no node schedulable), with pauses of 1 s doubling to 30 s, before
     * the episode ends in an infrastructure error: an outage costs a wait, not an attempt. PT0S: no waiting.
     */
    @WithDefault("PT5M")
    Duration sandboxOutageGrace();

    /**
     * How many times an episode whose sandbox died under it (the pod deleted or evicted, its node
     * lost) is played again from the start in a new sandbox, without spending one of the rollout's
     * attempts, before it ends in an infrastructure error. Counted in
     * {@code runner_sandbox_deaths_total}. 0: never.
     */
    @WithDefault("2")
    int sandboxDeathRetries();

    /** For {@code policy=oracle} (fixtures and tests only): a task file whose gold patches the oracle replays. */
    Optional<Path> oracleTasks();

    /**
     * How the agent's calls are read: {@code compact} (the built-in model), {@code json} (Hermes/Qwen
     * {@code <tool_call>{"name", "arguments"}</tool_call>}) or {@code llama3_json}
     * ({@code {"name", "parameters"}}, Llama 3.1).
     */
    @WithDefault("compact")
    CallFormat toolCallFormat();

    /**
     * A HuggingFace model folder (or a checkpoint of one) whose {@code tokenizer.json}, end tokens
     * and chat template lay out the episodes, token-exact; unset: the built-in model's byte
     * tokenizer and compact layout.
     */
    Optional<Path> modelDir();

    /** Passed to the chat template as {@code enable_thinking} (Qwen3), when set. */
    Optional<Boolean> enableThinking();

    AgentProgram agentProgram();

    /**
     * An agent program that plays the episodes instead of the built-in loop, unchanged, against an
     * OpenAI-compatible endpoint that records every call token-exact (docs/agent-programs.md). Needs
     * {@code model-dir} (its chat template lays the calls out) and the local sandbox back end.
     */
    interface AgentProgram {
        /**
         * The shell command, run at the workspace with {@code OPENAI_BASE_URL}, {@code OPENAI_API_KEY},
         * {@code ALICE_RL_MODEL}, {@code ALICE_RL_PROBLEM} and {@code ALICE_RL_AGENT_ENV} set; unset: the built-in loop.
         */
        Optional<String> command();

        /** The program's Python packages (pip requirements), built into an environment of its own in {@code python-envs}. */
        Optional<List<String>> pipPackages();

        /** The Python version of that environment. */
        @WithDefault("3.11")
        String python();

        /** The model name the endpoint reports and the program is given ({@code ALICE_RL_MODEL}). */
        @WithDefault("policy")
        String modelName();

        /** A folder of the program's own files (its scripts, its configuration), mounted read-only where it is ({@code ALICE_RL_AGENT_FILES}). */
        Optional<Path> files();
    }

    /**
     * The system prompt: {@code full} (the call format and every tool described, for models that read
     * instructions) or {@code brief} (the tools named only, for the built-in model trained on this loop).
     */
    @WithDefault(RunProfile.SYSTEM_PROMPT)
    SystemPrompt systemPrompt();

    /** Context budget of an episode in tokens (prompt + next completion). */
    @WithDefault(RunProfile.CONTEXT_LENGTH)
    int maxContextTokens();

    /** Git mirrors folder for tasks given as repo + base_commit. */
    Optional<Path> mirrors();

    /**
     * A filled Maven repository mounted read-only in the agent's local sandboxes (as the verifier's),
     * so that the agent can run a Java task's tests offline as it will be judged; with
     * {@code maven-home}, a Maven 3.9+ installation on its {@code PATH}.
     */
    Optional<Path> mavenRepository();

    /** A Maven installation for the agent's local sandboxes ({@code /opt/maven/bin} on {@code PATH}). */
    Optional<Path> mavenHome();

    /**
     * Where the Python environments of tasks that name {@code toolchain.python} are built and cached
     * (readable by sandbox users), as the verifier's {@code verifier.python-envs}: give both the same
     * folder and an environment is built once for the agent and the tests; default:
     * {@code PythonEnvironments.defaultCache()}.
     */
    Optional<Path> pythonEnvs();

    /** The size bound of {@link #pythonEnvs()} in GiB, as the verifier's {@code verifier.python-envs-max-gib}; 0: no bound. */
    @WithDefault("" + PythonEnvironments.DEFAULT_MAX_GIB)
    int pythonEnvsMaxGib();

    /** Folders of Python installations by version ({@code X.Y.Z/bin/pythonX.Y}) environments are built from; default: pyenv's. */
    Optional<List<Path>> pythonRoots();

    /** Sandbox backend: {@code local} (bubblewrap on this host, the default) or {@code kubernetes} (a pod per episode). */
    @WithDefault("local")
    SandboxBackend sandboxBackend();

    /** Kubernetes backend: the namespace sandbox pods run in (gets a deny-all NetworkPolicy). */
    @WithDefault("alice-rl-sandboxes")
    String kubernetesNamespace();

    /** Kubernetes backend: image for workspaces copied in; needs bash, coreutils, tar and git. */
    @WithDefault("ghcr.io/openalice/alice-rl-sandbox:latest")
    String kubernetesImage();

    /** Kubernetes backend: idle base-image pods kept started, so an episode does not wait for a pod start. */
    @WithDefault("2")
    int kubernetesWarmPool();

    /** Kubernetes backend: CPU request and limit of a sandbox container. */
    @WithDefault("1")
    String kubernetesCpu();

    /** Where local sandboxes live (and the Kubernetes backend's packed workspace templates). */
    @WithDefault("/tmp/alice-rl-runner-sandboxes")
    Path sandboxRoot();

    /** Where large trajectories are written (the local artifact store). */
    @WithDefault("/tmp/alice-rl-artifacts/trajectories")
    Path artifactDir();

    /**
     * The least free space, in MiB, {@code artifact-dir} and {@code sandbox-root} must have for the
     * runner to take a new rollout: under it new rollouts wait (they stay on Kafka, unclaimed) until
     * there is room — a full disk pauses the loop, never fails its rollouts. A trajectory that meets
     * a full volume waits for room too. {@code runner_disk_paused} (0/1),
     * {@code runner_disk_free_bytes}. 0: never pause.
     */
    @WithDefault("1024")
    long minFreeDiskMib();

    /**
     * Trajectory files in {@code artifact-dir} are deleted once last written this long ago (checked
     * every {@code prune-every}). The trainer reads one when it trains its group, within minutes to hours; a group whose
     * file is gone by then is dropped (artifact_missing), never a failed step.
     */
    @WithDefault("P7D")
    Duration keepArtifacts();

    /** How often trajectory files past {@code keep-artifacts} are looked for. */
    @WithDefault("PT1H")
    Duration pruneEvery();

    /**
     * The largest diff a completed rollout carries (its JSON-encoded bytes). A larger one is left out
     * ({@code patch} empty, {@code patchOmittedBytes} its size) so that the event fits the broker's
     * 1 MiB records beside an inline trajectory; the verifier judges it unresolved. An agent's fix
     * is never this large; a diff this large is a generated or copied file.
     */
    @WithDefault("524288")
    int maxPatchBytes();

    /** Trajectories larger than this (JSON bytes) go to the artifact store instead of inline. */
    @WithDefault("262144")
    int inlineTrajectoryBytes();

    /** A lease whose heartbeat is older than this is presumed dead and may be taken over. */
    @WithDefault("PT1M")
    Duration leaseTimeout();

    /** How often this runner renews its leases. */
    @WithDefault("5s")
    String heartbeatInterval();

    /** Test-time selection: M candidates per turn (0 = off, the default in training). */
    @WithDefault("0")
    int testTimeCandidates();

    /** Test-time selection: β in q ∝ π·exp(β·u). */
    @WithDefault("1.0")
    double testTimeBeta();

    /** rubric-prm's base URL, for step utilities in test-time selection. */
    @WithDefault("http://127.0.0.1:8084")
    String rubricUrl();

    /**
     * runner.policy=oracle: the chance that an episode leaves out the fix and submits the bug (a partly
     * successful scripted policy, for benchmarks of the loop; 0: always the full oracle).
     */
    @WithDefault("0")
    double oracleFailureProbability();

    /** runner.policy=random: the chance of submitting at each turn (load tests and end-to-end checks). */
    @WithDefault("0.1")
    double randomSubmitProbability();
}
