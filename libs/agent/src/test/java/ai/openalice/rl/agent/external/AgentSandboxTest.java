package ai.openalice.rl.agent.external;

import static org.junit.jupiter.api.Assertions.assertEquals;

import ai.openalice.rl.sandbox.ExecResult;
import ai.openalice.rl.sandbox.Sandbox;
import ai.openalice.rl.sandbox.SandboxSpec;
import ai.openalice.rl.sandbox.WorkspaceSource;
import ai.openalice.rl.sandbox.local.LocalSandboxConfig;
import ai.openalice.rl.sandbox.local.LocalSandboxProvider;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A program in a real bubblewrap sandbox (no network of its own) calls the endpoint as any OpenAI
 * client would, at {@code OPENAI_BASE_URL} with {@code OPENAI_API_KEY}; the host's loopback, where
 * the endpoint itself listens, stays out of its reach.
 */
class AgentSandboxTest {

    @BeforeAll
    static void setUp(@TempDir Path model) throws Exception {
        RecordingChatTest.setUp(model);
    }

    @Test
    void aProgramInASandboxReachesItsEpisodesEndpointAndNothingElse(@TempDir Path workspace) throws Exception {
        Files.writeString(workspace.resolve("README"), "a workspace\n");
        Path socketDir = Files.createTempDirectory("alice-rl-policy-");
        socketDir.toFile().setExecutable(true, false);
        var chat = new RecordingChat(RecordingChatTest.qwen3, RecordingChatTest.tok, Map.of(), new RecordingChatTest.Scripted("ls"));
        var provider = new LocalSandboxProvider(LocalSandboxConfig.defaults()
                .withRoot(Path.of("/tmp", "alice-rl-test-agent-" + UUID.randomUUID().toString().substring(0, 8))));
        try (var endpoint = AgentEndpoint.start(); var bridge = SocketBridge.open(socketDir.resolve("policy.sock"), endpoint.port());
                provider) {
            String key = endpoint.open(new AgentEndpoint.Episode(chat, "policy", new RecordingChat.Sampling(32, 1.0, 1.0, null, null)));
            SandboxSpec spec = AgentProgram.prepare(SandboxSpec.of(new WorkspaceSource.Dir(workspace)), socketDir, key, "policy");
            String client = String.join("\n", "import json, os, socket, urllib.request",
                    "req = urllib.request.Request(os.environ['OPENAI_BASE_URL'] + '/chat/completions',",
                    "    data=json.dumps({'model': os.environ['ALICE_RL_MODEL'], 'messages': [{'role': 'user', 'content': 'fix it'}]}).encode(),",
                    "    headers={'Authorization': 'Bearer ' + os.environ['OPENAI_API_KEY'], 'Content-Type': 'application/json'})",
                    "print(json.load(urllib.request.urlopen(req, timeout=30))['choices'][0]['message']['content'])",
                    "s = socket.socket()",
                    "s.settimeout(2)",
                    "try:",
                    "    s.connect(('127.0.0.1', " + endpoint.port() + "))",
                    "    print('reached the host')",
                    "except OSError:",
                    "    print('host loopback unreachable')");
            try (Sandbox s = provider.create(spec)) {
                s.writeFile("client.py", client);
                ExecResult r = s.exec(AgentProgram.command("policy.sock", "python3 client.py"), Duration.ofSeconds(60));
                assertEquals(0, r.exitCode(), r.toString());
                assertEquals(List.of("ls", "host loopback unreachable"), r.stdout().lines().toList(), r.toString());
            }
            assertEquals(1, chat.calls().size());
        } finally {
            Files.deleteIfExists(socketDir.resolve("policy.sock"));
            Files.deleteIfExists(socketDir);
        }
    }
}
