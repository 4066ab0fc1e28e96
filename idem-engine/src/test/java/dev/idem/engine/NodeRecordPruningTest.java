package dev.idem.engine;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idem.core.store.NodeRegistry;
import dev.idem.core.store.Store;
import dev.idem.engine.testing.Engines;
import dev.idem.store.testing.TestStores;
import dev.idem.wire.testing.MutableClock;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The pruner keeps the node registry small: with a node id per process by default, ended records would pile up. */
class NodeRecordPruningTest {
    @TempDir
    Path dir;

    @Test
    void theRecordOfANodeThatStoppedIsPrunedADayLaterAndLiveOnesStay() {
        MutableClock clock = MutableClock.at("2026-03-10T17:00:00Z");
        try (Store store = TestStores.sqlite(dir, clock)) {
            NodeRegistry.NodeProcess elsewhere = new NodeRegistry.NodeProcess("h", "h/boot/ns", 1, Instant.EPOCH);
            long epoch = ((NodeRegistry.Joined) store.nodes().join("gone", elsewhere, (n, now) -> false))
                    .node()
                    .epoch();
            store.nodes().leave("gone", epoch);
            try (Engine engine = new Engine(
                    store, Engines.fast("node-a"), clock, new SplittableRandom(1), new SimpleMeterRegistry())) {
                engine.start();
                clock.advance(Duration.ofHours(23));
                engine.pruneNow();
                assertThat(store.nodes().find("gone")).isPresent();
                clock.advance(Duration.ofHours(2));
                engine.pruneNow();
                assertThat(store.nodes().list())
                        .extracting(NodeRegistry.Node::nodeId)
                        .containsExactly("node-a");
            }
        }
    }
}
