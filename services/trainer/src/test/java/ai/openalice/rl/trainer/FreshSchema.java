package ai.openalice.rl.trainer;

import ai.openalice.rl.testkit.TestStack;
import io.quarkus.test.common.QuarkusTestResourceLifecycleManager;
import java.sql.SQLException;
import java.util.Map;

/** Drops the trainer's schema before the application starts: its registry and ledger start empty, as on a first deployment. */
public class FreshSchema implements QuarkusTestResourceLifecycleManager {
    @Override
    public Map<String, String> start() {
        try (var c = TestStack.openDatabase(); var st = c.createStatement()) {
            st.execute("DROP SCHEMA IF EXISTS trainer CASCADE");
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
        return Map.of();
    }

    @Override
    public void stop() {}
}
