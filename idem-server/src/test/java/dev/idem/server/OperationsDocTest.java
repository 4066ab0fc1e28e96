package dev.idem.server;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idem.core.store.Store;
import dev.idem.store.testing.TestStores;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * docs/operations.md's table of Idem's metrics is the list a real node exposes at {@code /metrics}, both ways: a
 * meter added to the engine without a row there, or a row for a meter that is gone, fails here.
 */
class OperationsDocTest {
    private static final Path PAGE = Path.of("..", "docs", "operations.md");
    private static final Pattern EXPOSED = Pattern.compile("^# TYPE (idem_[a-z_]+) ", Pattern.MULTILINE);
    private static final Pattern DOCUMENTED = Pattern.compile("^\\| `(idem_[a-z_]+)[`{]", Pattern.MULTILINE);

    @TempDir
    Path dir;

    @Test
    void the_metrics_table_lists_exactly_the_idem_meters_a_node_exposes() throws IOException {
        Set<String> exposed = new TreeSet<>();
        try (Store store = TestStores.sqlite(dir, Clock.systemUTC());
                TestNode node = new TestNode(store, dir, Clock.systemUTC(), 0);
                LoopbackReceiver receiver = new LoopbackReceiver()) {
            // one delivery, so that the meters registered on the first attempt (the attempt timer per result) exist too
            assertThat(node.call("POST", "/v1/schedules", "{\"endpoint\":\"" + receiver.url("/ops") + "\"}")
                            .status())
                    .isEqualTo(201);
            Awaitility.await()
                    .atMost(Duration.ofSeconds(60))
                    .until(() -> node.api
                            .call("GET", "/metrics", null, null)
                            .raw()
                            .contains("idem_deliveries_total{outcome=\"succeeded\"} 1.0"));
            Matcher m =
                    EXPOSED.matcher(node.api.call("GET", "/metrics", null, null).raw());
            // Prometheus adds a _max gauge beside each timer; the page documents the timer
            while (m.find()) if (!m.group(1).endsWith("_max")) exposed.add(m.group(1));
        }
        Set<String> documented = new TreeSet<>();
        Matcher d = DOCUMENTED.matcher(Files.readString(PAGE, StandardCharsets.UTF_8));
        while (d.find()) documented.add(d.group(1));

        assertThat(exposed).as("idem_* meters on /metrics").isNotEmpty();
        assertThat(documented).as("the rows of the metrics table in " + PAGE).isEqualTo(exposed);
    }
}
