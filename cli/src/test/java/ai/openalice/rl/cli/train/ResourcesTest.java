package ai.openalice.rl.cli.train;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;

import ai.openalice.rl.events.EventCodec;
import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class ResourcesTest {
    @Test
    void residentMemoryIsReadInBytesFromProcStatus() {
        String status = "Name:\tjava\nVmPeak:\t 9000 kB\nVmRSS:\t  204800 kB\nRssAnon:\t 100 kB\n";
        assertEquals(204800L * 1024, Resources.rssOf(status));
        assertNull(Resources.rssOf("Name:\tkthreadd\n"), "a kernel thread has no VmRSS");
        assertNotNull(Resources.rss(ProcessHandle.current().pid()), "this JVM has a resident set");
    }

    @Test
    void heapInUseIsTheSumOfTheHeapPoolsOnly() {
        String metrics = """
                # TYPE jvm_memory_used_bytes gauge
                jvm_memory_used_bytes{area="heap",id="Tenured Gen"} 1.5E8
                jvm_memory_used_bytes{area="heap",id="Eden Space"} 2.5E7
                jvm_memory_used_bytes{area="nonheap",id="Metaspace"} 9.0E7
                jvm_memory_max_bytes{area="heap",id="Eden Space"} 4.0E8
                """;
        assertEquals(175_000_000L, Resources.heapUsed(metrics));
        assertNull(Resources.heapUsed("process_uptime_seconds 12.0\n"), "no JVM metrics: unknown, not 0");
        assertEquals(1.0, Resources.gauge("# TYPE runner_disk_paused gauge\nrunner_disk_paused 1.0\nrunner_disk_paused_x 0\n", "runner_disk_paused"));
        assertEquals(0.0, Resources.gauge("runner_disk_paused{instance=\"a\"} 0.0\n", "runner_disk_paused"));
        assertNull(Resources.gauge("runner_disk_paused_total 3\n", "runner_disk_paused"), "another metric that starts the same");
    }

    @Test
    void theReportDrawsOneLinePerProcessInMinutesAndMiB() throws Exception {
        var samples = new ArrayList<JsonNode>();
        for (String s : List.of("{\"t\":60000,\"dbBytes\":1048576,\"rss\":{\"trainer\":2097152,\"inference\":1048576}}",
                "{\"t\":180000,\"dbBytes\":3145728,\"rss\":{\"trainer\":4194304}}")) {
            samples.add(EventCodec.mapper().readTree(s));
        }
        var rss = Report.lines("rss", "minutes", "MiB", samples, "rss");
        assertEquals(List.of("inference", "trainer"), List.copyOf(rss.lines().keySet()));
        assertArrayEquals(new double[] {0, 2}, rss.lines().get("trainer").get(0));
        assertArrayEquals(new double[] {2, 4}, rss.lines().get("trainer").get(1), "two minutes later, 4 MiB");
        assertEquals(1, rss.lines().get("inference").size(), "a process missing from a sample has no point there");
        var db = Report.lines("db", "minutes", "MiB", samples, "dbBytes");
        assertArrayEquals(new double[] {2, 3}, db.lines().get("dbBytes").get(1));
        assertNotNull(Report.draw(rss));
    }
}
