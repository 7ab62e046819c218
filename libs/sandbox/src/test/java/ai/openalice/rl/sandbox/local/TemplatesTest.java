package ai.openalice.rl.sandbox.local;

import static org.junit.jupiter.api.Assertions.assertEquals;

import ai.openalice.rl.sandbox.WorkspaceSource;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CyclicBarrier;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class TemplatesTest {
    @TempDir
    Path tmp;

    @Test
    void twoProcessesBuildingTheSameTemplateAtOnceBothGetIt() throws Exception {
        // Two Templates on one folder are two processes sharing a sandbox root (two runners, or
        // evaluations side by side): each builds in its own temporary folder and renames it in place.
        Path shared = tmp.resolve("templates");
        var first = new Templates(shared);
        var second = new Templates(shared);
        for (int i = 0; i < 6; i++) {
            Path src = Files.createDirectories(tmp.resolve("src" + i));
            Files.writeString(src.resolve("mod.py"), "def f():\n    return " + i + "\n");
            var source = new WorkspaceSource.Dir(src);
            var barrier = new CyclicBarrier(2);
            var a = CompletableFuture.supplyAsync(() -> build(first, source, barrier));
            var b = CompletableFuture.supplyAsync(() -> build(second, source, barrier));
            Templates.Template ta = a.join();
            Templates.Template tb = b.join();
            assertEquals(ta, tb, "source " + i + ": the same template");
            assertEquals("def f():\n    return " + i + "\n", Files.readString(ta.tree().resolve("mod.py")));
        }
        try (var left = Files.list(shared)) {
            assertEquals(List.of(), left.filter(p -> p.getFileName().toString().contains(".tmp-")).toList(), "no temporary folder left");
        }
    }

    private static Templates.Template build(Templates t, WorkspaceSource source, CyclicBarrier barrier) {
        try {
            barrier.await();
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
        return t.get(source);
    }
}
