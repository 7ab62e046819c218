package ai.openalice.rl.cli.train;

import com.sun.net.httpserver.HttpServer;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * A stand-in for a Quarkus service, run by {@link SupervisorTest} as the Supervisor runs one:
 * {@code java -Dquarkus.http.port=P -Dfake.dir=D -jar quarkus-run.jar}. It notes each start in
 * {@code D/starts}, and its liveness check answers 503 while {@code D/down} exists; while {@code D/fail-starts}
 * holds a number above 0 it takes one off and exits with status 1 instead of starting.
 */
public final class FakeService {
    public static void main(String[] args) throws Exception {
        Path dir = Path.of(System.getProperty("fake.dir"));
        Path failing = dir.resolve("fail-starts"); // the starts still to fail, as a service that cannot reach its database gives up
        if (Files.exists(failing) && Integer.parseInt(Files.readString(failing).strip()) > 0) {
            Files.writeString(failing, Integer.toString(Integer.parseInt(Files.readString(failing).strip()) - 1));
            System.exit(1);
        }
        var server = HttpServer.create(new InetSocketAddress("127.0.0.1", Integer.getInteger("quarkus.http.port")), 0);
        server.createContext("/q/health/ready", x -> {
            x.sendResponseHeaders(200, -1);
            x.close();
        });
        server.createContext("/q/health/live", x -> {
            x.sendResponseHeaders(Files.exists(dir.resolve("down")) ? 503 : 200, -1);
            x.close();
        });
        Files.writeString(dir.resolve("starts"), ProcessHandle.current().pid() + "\n", StandardOpenOption.CREATE, StandardOpenOption.APPEND);
        server.start(); // after the note, so that a ready answer means the start is noted
    }
}
