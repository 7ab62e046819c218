package ai.openalice.rl.dispatcher;

import static ai.openalice.rl.dispatcher.DispatcherFixture.task;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.quarkus.test.common.http.TestHTTPResource;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.QuarkusTestProfile;
import io.quarkus.test.junit.TestProfile;
import io.vertx.mutiny.sqlclient.Pool;
import io.vertx.mutiny.sqlclient.Tuple;
import jakarta.inject.Inject;
import java.net.URI;
import java.net.URL;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/** Per-source quotas on POST /tasks: at most 3 training tasks not yet scheduled and 4 added per hour, per source. */
@QuarkusTest
@TestProfile(QuotaTest.Small.class)
class QuotaTest {
    public static class Small implements QuarkusTestProfile {
        @Override
        public Map<String, String> getConfigOverrides() {
            return Map.of("dispatcher.quota.pending-tasks", "3", "dispatcher.quota.submissions-per-hour", "4");
        }
    }

    private static final HttpClient HTTP = HttpClient.newHttpClient();

    @TestHTTPResource("/")
    URL base;

    @Inject
    Pool pool;

    HttpResponse<String> submit(String source, int n) throws Exception {
        var lines = new ArrayList<String>();
        for (int i = 0; i < n; i++) {
            lines.add(task("quota-" + UUID.randomUUID(), "train", null).toString());
        }
        return HTTP.send(HttpRequest.newBuilder(URI.create(base.toString()).resolve("/tasks?source=" + source))
                .POST(HttpRequest.BodyPublishers.ofString(String.join("\n", lines))).build(), HttpResponse.BodyHandlers.ofString());
    }

    long stored(String source) {
        return pool.preparedQuery("SELECT count(*) AS n FROM dispatcher.tasks WHERE source = $1").execute(Tuple.of(source)).await().indefinitely()
                .iterator().next().getLong("n");
    }

    @Test
    void aSourceMayHaveAtMostItsPendingTasksWaiting() throws Exception {
        String a = "quota-a-" + UUID.randomUUID();
        assertEquals(200, submit(a, 2).statusCode());
        var refused = submit(a, 2); // 2 pending + 2 > 3
        assertEquals(429, refused.statusCode(), refused.body());
        assertEquals("60", refused.headers().firstValue("Retry-After").orElseThrow());
        assertTrue(refused.body().contains("has 2 training task(s) not yet scheduled") && refused.body().contains("pending-tasks (3)"), refused.body());
        assertEquals(2, stored(a), "nothing of a refused request is taken");
        assertEquals(200, submit(a, 1).statusCode()); // 2 + 1 = 3
        assertEquals(200, submit("quota-b-" + UUID.randomUUID(), 3).statusCode(), "another source has its own count");
    }

    @Test
    void aSourceMayAddAtMostItsHourlyTasks() throws Exception {
        String c = "quota-c-" + UUID.randomUUID();
        assertEquals(200, submit(c, 3).statusCode());
        // scheduled: no longer pending, still added within the hour
        pool.preparedQuery("UPDATE dispatcher.task_state SET groups = 1 WHERE source = $1").execute(Tuple.of(c)).await().indefinitely();
        var refused = submit(c, 2); // 3 this hour + 2 > 4
        assertEquals(429, refused.statusCode(), refused.body());
        long retry = Long.parseLong(refused.headers().firstValue("Retry-After").orElseThrow());
        assertTrue(retry > 3500 && retry <= 3600, "the oldest of the hour leaves the window in just under an hour: " + retry);
        assertTrue(refused.body().contains("added 3 task(s) in the last hour") && refused.body().contains("submissions-per-hour (4)"), refused.body());
        assertEquals(200, submit(c, 1).statusCode()); // 3 + 1 = 4
        assertEquals(4, stored(c));
    }
}
