package ai.openalice.rl.e2e;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ai.openalice.rl.cli.train.Supervisor;
import ai.openalice.rl.events.EventCodec;
import ai.openalice.rl.events.Trajectory;
import ai.openalice.rl.events.Turn;
import ai.openalice.rl.model.tokenizer.HuggingFaceTokenizer;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/**
 * An agent program of its own plays the episodes instead of the built-in loop (issue 61): a small
 * OpenAI client written here with Python's standard library, run unchanged in each episode's
 * sandbox, asks the policy (a tiny random Qwen3 served by inference) twice, sending its history back
 * as it got it; the runner records the calls token-exact, and the trainer takes a GRPO++ step on a
 * LoRA adapter from them.
 */
class AgentProgramLoopIT {

    static final String PROGRAM = """
            python3 - <<'EOF'
            import json, os, urllib.request
            def ask(messages):
                req = urllib.request.Request(os.environ["OPENAI_BASE_URL"] + "/chat/completions",
                    data=json.dumps({"model": os.environ["ALICE_RL_MODEL"], "messages": messages, "max_tokens": 24}).encode(),
                    headers={"Authorization": "Bearer " + os.environ["OPENAI_API_KEY"], "Content-Type": "application/json"})
                return json.load(urllib.request.urlopen(req, timeout=120))["choices"][0]["message"]["content"]
            messages = [{"role": "system", "content": "Fix the task."}, {"role": "user", "content": open(os.environ["ALICE_RL_PROBLEM"]).read()}]
            messages += [{"role": "assistant", "content": ask(messages)}, {"role": "user", "content": "ran it"}]
            ask(messages)
            EOF""";

    @Test
    void anAgentProgramsCallsAreRecordedAndTrainedOn() throws Exception {
        String suffix = ".e2eap" + UUID.randomUUID().toString().substring(0, 8);
        Path model = HfLoopIT.tinyQwen3(Path.of("target", "e2e-model" + suffix).toAbsolutePath());
        try (var s = loop(suffix, model, 4096, List.of("-Drunner.agent-program.command=" + PROGRAM))) {
            LoopIT.publish(HfLoopIT.suite(suffix), suffix, 4);
            var v1 = LoopIT.awaitCheckpoint(suffix, 1, Duration.ofMinutes(8));
            assertEquals(1, v1.step());

            Trajectory t = HfLoopIT.sampledEpisode(suffix, Duration.ofMinutes(2));
            assertEquals(2, t.turns().size(), "the program's two calls are the episode's turns");
            try (var tok = HuggingFaceTokenizer.forModel(model)) {
                Turn first = t.turns().get(0), second = t.turns().get(1);
                String opening = tok.decode(ids(first.promptDeltaTokenIds()));
                assertTrue(opening.startsWith("<|im_start|>system\nFix the task.<|im_end|>\n<|im_start|>user\n"), opening);
                assertTrue(opening.endsWith("<|im_end|>\n<|im_start|>assistant\n"), opening);
                assertFalse(first.completionTokenIds().isEmpty(), "the policy answered through the endpoint");
                assertFalse(second.newContext(), "the program sent its history back as it got it: one context");
                assertEquals("ran it", first.observation(), "what the program sent after the first answer");
                String added = tok.decode(ids(second.promptDeltaTokenIds()));
                assertTrue(added.endsWith("<|im_start|>user\nran it<|im_end|>\n<|im_start|>assistant\n"), added);
            }
            var trainer = EventCodec.mapper().readTree(s.get("trainer", "/status"));
            assertTrue(trainer.get("samples.trained").asLong() >= 2, trainer.toString());
        }
    }

    /**
     * mini-swe-agent as it ships (its default configuration, bash as an OpenAI tool), built by the
     * runner from PyPI, plays the episodes. The tiny random model never writes a tool call, so every
     * answer gets mini-swe-agent's format error back, until the episode's calls or context are spent
     * and it stops. It keeps no answer it cannot parse, so each call after the first is a context of
     * its own (the whole prompt, the episode's advantage), and the trainer takes its step on them.
     */
    @Test
    void miniSweAgentAsItShipsPlaysTheEpisodesThroughTheWholeLoop() throws Exception {
        String suffix = ".e2emini" + UUID.randomUUID().toString().substring(0, 8);
        // mini-swe-agent's first prompt (its instructions and bash tool) is about 5,000 bytes, a token a byte here
        Path model = HfLoopIT.tinyQwen3(Path.of("target", "e2e-model" + suffix).toAbsolutePath(), 16384);
        try (var s = loop(suffix, model, 12288, List.of("-Drunner.agent-program.command=sh \"$ALICE_RL_AGENT_FILES/mini_swe_agent.sh\"",
                "-Drunner.agent-program.pip-packages=" + MINI_SWE_AGENT, "-Drunner.agent-program.files=" + PROGRAMS))) {
            LoopIT.publish(HfLoopIT.suite(suffix), suffix, 3);
            var v1 = LoopIT.awaitCheckpoint(suffix, 1, Duration.ofMinutes(10));
            assertEquals(1, v1.step());

            Trajectory t = HfLoopIT.sampledEpisode(suffix, Duration.ofMinutes(2));
            assertTrue(t.turns().size() >= 2, "mini-swe-agent called again after its format error: " + t.turns().size());
            try (var tok = HuggingFaceTokenizer.forModel(model)) {
                String opening = tok.decode(ids(t.turns().get(0).promptDeltaTokenIds()));
                assertTrue(opening.contains("\"name\": \"bash\""), "mini-swe-agent's bash tool, rendered by the template: " + opening);
                // it keeps no answer it cannot parse, only its format error: the history was rewritten, so the call is a context of its own
                Turn second = t.turns().get(1);
                assertTrue(second.newContext(), "the unparseable answer was dropped from mini-swe-agent's history");
                String again = tok.decode(ids(second.promptDeltaTokenIds()));
                assertTrue(again.startsWith(opening.substring(0, opening.length() - "<|im_start|>assistant\n".length())), again);
                assertFalse(t.turns().get(0).observation().isBlank(), "its format error, as it told the model");
                assertTrue(again.contains(t.turns().get(0).observation()), again);
            }
            var trainer = EventCodec.mapper().readTree(s.get("trainer", "/status"));
            assertTrue(trainer.get("samples.trained").asLong() >= 2, trainer.toString());
        }
    }

    /**
     * OpenHands' software agent SDK as it ships (examples/agent-programs/openhands_sdk.py: its
     * terminal and file editor, no condenser), built by the runner from PyPI on Python 3.12, plays the
     * episodes. Its first prompt (system prompt and four tools) is about 26,000 bytes, so the tiny
     * random Qwen3 reads SmolLM2's BPE tokens here; it answers text, never a tool call, and OpenHands
     * takes a text answer as the end of its run (it waits for the user). The prompt the endpoint
     * recorded is the rendered prompt's own tokenisation, token for token.
     */
    @Test
    void openHandsAsItShipsPlaysTheEpisodesThroughTheWholeLoop() throws Exception {
        String suffix = ".e2eoh" + UUID.randomUUID().toString().substring(0, 8);
        Path model = HfLoopIT.tinyQwen3OverSmolLm2Tokens(Path.of("target", "e2e-model" + suffix).toAbsolutePath(), 16384);
        String command = "\"$ALICE_RL_AGENT_ENV/bin/python\" \"$ALICE_RL_AGENT_FILES/openhands_sdk.py\" < /dev/null";
        try (var s = loop(suffix, model, 12288, List.of("-Drunner.agent-program.command=" + command,
                "-Drunner.agent-program.pip-packages=" + String.join(",", OPENHANDS), "-Drunner.agent-program.python=3.12",
                "-Drunner.agent-program.files=" + PROGRAMS))) {
            LoopIT.publish(HfLoopIT.suite(suffix), suffix, 3);
            var v1 = LoopIT.awaitCheckpoint(suffix, 1, Duration.ofMinutes(10));
            assertEquals(1, v1.step());

            Trajectory t = HfLoopIT.sampledEpisode(suffix, Duration.ofMinutes(2));
            try (var tok = HuggingFaceTokenizer.forModel(model)) {
                int[] prompt = ids(t.turns().get(0).promptDeltaTokenIds());
                String opening = tok.decode(prompt);
                assertTrue(opening.startsWith("<|im_start|>system\n") && opening.contains("You are OpenHands agent"), opening);
                assertTrue(opening.contains("\"name\": \"terminal\"") && opening.contains("\"name\": \"file_editor\""),
                        "OpenHands' tools, rendered by the template: " + opening);
                assertTrue(opening.length() > 3 * prompt.length, "BPE tokens, several bytes each: " + opening.length() + " / " + prompt.length);
                assertArrayEquals(tok.encode(opening), prompt, "the tokens the policy read are the rendered prompt's own tokenisation");
            }
            var trainer = EventCodec.mapper().readTree(s.get("trainer", "/status"));
            assertTrue(trainer.get("samples.trained").asLong() >= 2, trainer.toString());
        }
    }

    /** The release checked here (as OpenHandsTest's): the SDK and its tools, pinned together. */
    static final List<String> OPENHANDS = List.of("openhands-sdk==1.58.2", "openhands-tools==1.58.2");

    /** The project's scripts for agent programs, as a user's {@code runner.agent-program.files}. */
    static final Path PROGRAMS = Path.of("..", "examples", "agent-programs").toAbsolutePath().normalize();

    /** The release checked here (as MiniSweAgentTest's). */
    static final String MINI_SWE_AGENT = "mini-swe-agent==2.4.6";

    /** The whole loop (HfLoopIT's) with a new LoRA adapter, the runner sampling through inference within {@code context} tokens. */
    private static Supervisor loop(String suffix, Path model, int context, List<String> runner) throws Exception {
        return HfLoopIT.loop(suffix, "e2eap", model, HfLoopIT.LORA, services -> {
            var args = new ArrayList<>(List.of("-Drunner.policy=http", "-Drunner.max-context-tokens=" + context,
                    "-Drunner.inference-url=" + services.uri("inference", "")));
            args.addAll(runner);
            return args;
        });
    }

    private static int[] ids(List<Integer> ids) {
        return ids.stream().mapToInt(Integer::intValue).toArray();
    }
}
