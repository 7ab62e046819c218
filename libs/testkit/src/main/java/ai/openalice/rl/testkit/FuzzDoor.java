package ai.openalice.rl.testkit;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/**
 * Sends generated bodies ({@link Mutations}) to one REST door and collects what a demanding caller
 * would call wrong: a status outside {@code expected} (a 5xx, above all), or a 4xx whose body is not
 * a problem document with that status and a detail.
 */
public final class FuzzDoor {
    private static final HttpClient HTTP = HttpClient.newHttpClient();

    private FuzzDoor() {}

    /** Every case's mismatch as "how: got N body", empty when the door held. */
    public static List<String> send(URI uri, List<Mutations.Case> cases, Set<Integer> expected) {
        var wrong = new ArrayList<String>();
        for (var c : cases) {
            HttpResponse<String> r;
            try {
                r = HTTP.send(HttpRequest.newBuilder(uri).header("Content-Type", "application/json").POST(HttpRequest.BodyPublishers.ofByteArray(c.bytes()))
                        .build(), HttpResponse.BodyHandlers.ofString());
            } catch (IOException e) {
                throw new UncheckedIOException(c.how(), e);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException(e);
            }
            int s = r.statusCode();
            boolean problem = s < 400 || (r.body().contains("\"status\":" + s) && r.body().contains("\"detail\":"));
            if (!expected.contains(s) || !problem) {
                wrong.add(c.how() + ": got " + s + " " + (r.body().length() > 300 ? r.body().substring(0, 300) + "…" : r.body()));
            }
        }
        return wrong;
    }
}
