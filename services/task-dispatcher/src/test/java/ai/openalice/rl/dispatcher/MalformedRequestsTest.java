package ai.openalice.rl.dispatcher;

import static ai.openalice.rl.dispatcher.DispatcherFixture.task;
import static org.junit.jupiter.api.Assertions.assertEquals;

import ai.openalice.rl.testkit.FuzzDoor;
import ai.openalice.rl.testkit.Mutations;
import io.quarkus.test.common.http.TestHTTPResource;
import io.quarkus.test.junit.QuarkusTest;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.net.Socket;
import java.net.URI;
import java.net.URL;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Assertions;
import org.junit.jupiter.api.Test;

/**
 * Generated bad bodies at the dispatcher's doors (seeded): every answer is what the door promises —
 * POST /tasks 200, 400 or 409, POST /evals 202 or 400 — a 4xx always a problem naming what is
 * wrong, never a 5xx; a body past the HTTP limit is a 413; a task too large for the Kafka records
 * it would travel in is a 400 naming its size.
 */
@QuarkusTest
class MalformedRequestsTest {
    static final int CASES = 300;

    @TestHTTPResource("/")
    URL base;

    URI uri(String path) {
        return URI.create(base.toString()).resolve(path);
    }

    @Test
    void badTasksAndEvaluationsAreRefusedWithAProblemNeverA5xx() throws Exception {
        var tasks = new Mutations(7L).of(task("fuzz-known", "train", null), CASES);
        var wrong = FuzzDoor.send(uri("/tasks?source=fuzz"), tasks, Set.of(200, 400, 409));
        assertEquals(List.of(), wrong, String.join("\n", wrong));
        assertEquals(200, DispatcherFixture.http(uri("/tasks?source=fuzz&newVersion=true"), "POST", task("fuzz-known", "train", null).toString()).status());
        var eval = Mutations.parse("{\"taskIds\": [\"fuzz-known\"], \"k\": 2, \"policyVersion\": 3, \"alpha\": 0.5}");
        wrong = FuzzDoor.send(uri("/evals"), new Mutations(8L).of(eval, CASES), Set.of(202, 400));
        assertEquals(List.of(), wrong, String.join("\n", wrong));
        System.out.printf("MalformedRequestsTest: %d generated bodies at POST /tasks and POST /evals, every one answered as promised%n", 2 * CASES);
    }

    /**
     * quarkus.http.limits.max-body-size (10 MiB by default): an announced 11 MiB body is refused with
     * 413 from its headers, before any of it is read (asked over a plain socket: the JDK client
     * reports the closed connection instead of the answer).
     */
    @Test
    void aBodyPastTheLimitIs413() throws Exception {
        var u = uri("/tasks");
        try (var socket = new Socket(u.getHost(), u.getPort())) {
            socket.setSoTimeout(30_000);
            socket.getOutputStream().write(("POST /tasks HTTP/1.1\r\nHost: " + u.getHost() + "\r\nContent-Type: application/json\r\nContent-Length: "
                    + 11 * 1024 * 1024 + "\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
            socket.getOutputStream().flush();
            String status = new BufferedReader(new InputStreamReader(socket.getInputStream(), StandardCharsets.US_ASCII))
                    .readLine();
            assertEquals("HTTP/1.1 413 Request Entity Too Large", status);
        }
    }

    /**
     * A valid task whose statement alone is 950,000 characters: over dispatcher.max-task-bytes
     * (900,000), so refused with its size, never stored (it would have been announced in records
     * Kafka refuses, which once held up the dispatcher's outbox for good).
     */
    @Test
    void aTaskTooLargeForItsKafkaRecordsIsRefusedNamingItsSize() throws Exception {
        var r = DispatcherFixture.http(uri("/tasks?source=fuzz"), "POST", task("too-large", "train", "x".repeat(950_000)).toString());
        assertEquals(400, r.status(), r.body().toString());
        Assertions.assertTrue(r.body().toString().contains("over dispatcher.max-task-bytes (900000)"), r.body().toString());
        assertEquals(404, DispatcherFixture.http(uri("/tasks/too-large"), "GET", null).status(), "nothing was stored");
    }
}
