package ai.openalice.rl.agent.external;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ai.openalice.rl.agent.loop.Episode;
import ai.openalice.rl.agent.loop.LoopConfig;
import ai.openalice.rl.events.Termination;
import ai.openalice.rl.events.Turn;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * mini-swe-agent as it ships on PyPI, unchanged, plays an episode in a real bubblewrap sandbox
 * against the endpoint: its default configuration (bash as an OpenAI tool, litellm as the client).
 * The policy is scripted (Hermes tool calls, as a Qwen model writes them): a command that edits the
 * workspace, then mini-swe-agent's own word for done.
 */
class MiniSweAgentTest {
    /** The release checked here. */
    static final String MINI_SWE_AGENT = "mini-swe-agent==2.4.6";
    static ProgramFixture programs;
    static ProgramEpisode.Program mini;

    /** mini-swe-agent's command line, headless (examples/agent-programs/mini_swe_agent.sh: no confirmations, no cost limit, its files in /tmp). */
    static final String COMMAND = "sh \"$ALICE_RL_AGENT_FILES/mini_swe_agent.sh\"";

    @BeforeAll
    static void setUp(@TempDir Path model) throws Exception {
        mini = new ProgramEpisode.Program(COMMAND, ProgramFixture.environment("3.11", List.of(MINI_SWE_AGENT)), ProgramFixture.PROGRAMS);
        programs = ProgramFixture.start(model, "mini");
    }

    @AfterAll
    static void tearDown() {
        if (programs != null) {
            programs.close();
        }
    }

    @Test
    void miniSweAgentAsItShipsPlaysAnEpisodeThroughTheEndpoint(@TempDir Path workspace) throws Exception {
        Files.writeString(workspace.resolve("a.py"), "print(1)\n");
        var policy = new RecordingChatTest.Scripted(
                "I will write the note.\n<tool_call>\n{\"name\": \"bash\", \"arguments\": {\"command\": \"echo fixed > notes.txt\"}}\n</tool_call>",
                "<tool_call>\n{\"name\": \"bash\", \"arguments\": {\"command\": \"echo COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT\"}}\n</tool_call>");
        Episode e = programs.play(mini, "write a note", policy, LoopConfig.defaults(10, 8192).withTimeout(Duration.ofMinutes(3)), workspace);
        assertEquals(Termination.SUBMITTED, e.termination(), String.valueOf(e.error()));
        assertTrue(e.patch().contains("+++ b/notes.txt") && e.patch().contains("+fixed"), e.patch());
        List<Turn> turns = e.trajectory().turns();
        assertEquals(2, turns.size());
        assertFalse(turns.get(1).newContext(), "mini-swe-agent sends its history back as it got it: one context");
        assertEquals("echo fixed > notes.txt", turns.get(0).action().args().get("command").asText(), "the command it was asked to run");
        String added = ProgramFixture.text(turns.get(1).promptDeltaTokenIds());
        assertTrue(added.startsWith("\n<|im_start|>user\n<tool_response>\n") && added.endsWith("</tool_response><|im_end|>\n<|im_start|>assistant\n"),
                added);
        String opening = ProgramFixture.text(turns.get(0).promptDeltaTokenIds());
        assertTrue(opening.contains("write a note") && opening.contains("\"name\": \"bash\""), "the task and mini-swe-agent's bash tool: " + opening);
        assertFalse(turns.get(0).observation().isBlank(), "what mini-swe-agent told the model its command printed");
        assertTrue(added.contains(turns.get(0).observation()), turns.get(0).observation());
    }

    @Test
    void miniSweAgentStopsWhenTheEpisodesCallsAreSpent(@TempDir Path workspace) throws Exception {
        Files.writeString(workspace.resolve("a.py"), "print(1)\n");
        var policy = new RecordingChatTest.Scripted(
                "<tool_call>\n{\"name\": \"bash\", \"arguments\": {\"command\": \"echo 2 > a.py\"}}\n</tool_call>");
        // one call allowed: the second is refused with OpenAI's context-overflow words, which litellm does not retry;
        // a retried refusal would keep mini-swe-agent going until the time limit (a timeout, not max_steps)
        Episode e = programs.play(mini, "change a.py", policy, LoopConfig.defaults(1, 8192).withTimeout(Duration.ofSeconds(90)), workspace);
        assertEquals(Termination.MAX_STEPS, e.termination(), String.valueOf(e.error()));
        assertEquals(1, e.trajectory().turns().size());
        assertFalse(e.trajectory().turns().get(0).observation().isBlank(), "what it sent with the refused call: its command's output");
        assertTrue(e.patch().contains("+2"), "the workspace as the program left it is the patch: " + e.patch());
    }
}
