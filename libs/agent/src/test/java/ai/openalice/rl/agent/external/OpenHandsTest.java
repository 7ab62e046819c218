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
 * OpenHands' software agent SDK as it ships on PyPI, headless in a real bubblewrap sandbox against
 * the endpoint (examples/agent-programs/openhands_sdk.py: its terminal and file editor tools, no
 * condenser). The policy is scripted (Hermes tool calls): a terminal command that edits the
 * workspace, then OpenHands' finish tool. (The test's tokenizer is a token a byte: OpenHands' first
 * prompt, its system prompt and four tools, is about 26,000.)
 */
class OpenHandsTest {
    /** The release checked here: the SDK and its tools, pinned together (the tools do not pin the SDK). */
    static final List<String> OPENHANDS = List.of("openhands-sdk==1.58.2", "openhands-tools==1.58.2");
    static final String COMMAND = "\"$ALICE_RL_AGENT_ENV/bin/python\" \"$ALICE_RL_AGENT_FILES/openhands_sdk.py\"";
    static ProgramFixture programs;
    static ProgramEpisode.Program program;

    @BeforeAll
    static void setUp(@TempDir Path model) throws Exception {
        program = new ProgramEpisode.Program(COMMAND, ProgramFixture.environment("3.12", OPENHANDS), ProgramFixture.PROGRAMS);
        programs = ProgramFixture.start(model, "openhands");
    }

    @AfterAll
    static void tearDown() {
        if (programs != null) {
            programs.close();
        }
    }

    @Test
    void openHandsAsItShipsPlaysAnEpisodeThroughTheEndpoint(@TempDir Path workspace) throws Exception {
        Files.writeString(workspace.resolve("a.py"), "print(1)\n");
        var policy = new RecordingChatTest.Scripted(
                "I will write the note.\n<tool_call>\n{\"name\": \"terminal\", \"arguments\": {\"command\": \"echo fixed > notes.txt\", \"security_risk\": \"LOW\"}}\n</tool_call>",
                "<tool_call>\n{\"name\": \"finish\", \"arguments\": {\"message\": \"Wrote notes.txt.\"}}\n</tool_call>");
        Episode e = programs.play(program, "write a note", policy, LoopConfig.defaults(10, 65536).withTimeout(Duration.ofMinutes(3)), workspace);
        assertEquals(Termination.SUBMITTED, e.termination(), String.valueOf(e.error()));
        assertTrue(e.patch().contains("+++ b/notes.txt") && e.patch().contains("+fixed"), e.patch());
        List<Turn> turns = e.trajectory().turns();
        assertEquals(2, turns.size());
        assertFalse(turns.get(1).newContext(), "OpenHands sends its history back as it got it (no condenser): one context");
        assertEquals("terminal", turns.get(0).action().tool());
        assertEquals("echo fixed > notes.txt", turns.get(0).action().args().get("command").asText(), "the command it was asked to run");
        String opening = ProgramFixture.text(turns.get(0).promptDeltaTokenIds());
        assertTrue(opening.contains("write a note") && opening.contains("\"name\": \"terminal\"") && opening.contains("\"name\": \"finish\""),
                "the task and OpenHands' tools, rendered by the template: " + opening.substring(Math.max(0, opening.length() - 2000)));
        String added = ProgramFixture.text(turns.get(1).promptDeltaTokenIds());
        assertTrue(added.startsWith("\n<|im_start|>user\n<tool_response>\n") && added.contains(turns.get(0).observation()), added);
    }

    @Test
    void openHandsStopsWhenTheEpisodesCallsAreSpent(@TempDir Path workspace) throws Exception {
        Files.writeString(workspace.resolve("a.py"), "print(1)\n");
        var policy = new RecordingChatTest.Scripted(
                "<tool_call>\n{\"name\": \"terminal\", \"arguments\": {\"command\": \"echo 2 > a.py\", \"security_risk\": \"LOW\"}}\n</tool_call>");
        Episode e = programs.play(program, "change a.py", policy, LoopConfig.defaults(1, 65536).withTimeout(Duration.ofSeconds(90)), workspace);
        assertEquals(Termination.MAX_STEPS, e.termination(), "stopped by the budget's answer, not retried to the time limit: " + e.error());
        assertTrue(e.patch().contains("+2"), e.patch());
    }
}
