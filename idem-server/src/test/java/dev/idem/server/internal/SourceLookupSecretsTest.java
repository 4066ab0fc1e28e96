package dev.idem.server.internal;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idem.core.Mode;
import dev.idem.core.Source;
import dev.idem.core.Tenant;
import dev.idem.core.store.Store;
import dev.idem.store.testing.TestStores;
import dev.idem.wire.testing.MutableClock;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The ingest route's sources hold opened provider secrets: briefly, and for a bounded number of sources. */
class SourceLookupSecretsTest {
    private final MutableClock clock = MutableClock.at("2030-01-01T00:00:00Z");
    private Store store;

    @BeforeEach
    void open(@TempDir Path dir) {
        store = TestStores.sqlite(dir, clock);
    }

    @AfterEach
    void close() {
        store.close();
    }

    private String insert(int i) {
        String id = String.format("src_%04d", i);
        Instant t = clock.instant();
        store.useTransaction(tx -> tx.sources()
                .insert(new Source(
                        id,
                        new Tenant("prj_1", Mode.TEST),
                        "s" + i,
                        "hmac_sha256",
                        "provider-secret-" + i,
                        List.of(),
                        "X-Sig",
                        "hex",
                        Duration.ofMinutes(5),
                        "https://example.com/x",
                        "auto",
                        100,
                        false,
                        t,
                        t)));
        return id;
    }

    @Test
    void anOpenedSourceIsDroppedOnceItIsNoLongerFreshAndReadAgainWhenNeeded() {
        SourceLookup lookup = new SourceLookup(store, clock);
        String id = insert(1);
        assertThat(lookup.find(id).secret()).isEqualTo("provider-secret-1");
        assertThat(lookup.openedCount()).isEqualTo(1);

        clock.advance(SourceLookup.FRESH_FOR.minusMillis(1));
        assertThat(lookup.openedCount()).as("still fresh").isEqualTo(1);
        clock.advance(Duration.ofMillis(1));
        assertThat(lookup.openedCount())
                .as("no opened secret outlives its freshness")
                .isZero();

        assertThat(lookup.find(id).secret()).isEqualTo("provider-secret-1");
        assertThat(lookup.openedCount()).isEqualTo(1);
    }

    @Test
    void atMostTheBoundOfSourcesAreHeldOpenedAtOnce() {
        SourceLookup lookup = new SourceLookup(store, clock, 10);
        for (int i = 0; i < 50; i++) assertThat(lookup.find(insert(i)).secret()).isEqualTo("provider-secret-" + i);
        assertThat(lookup.openedCount()).isLessThanOrEqualTo(10);
        assertThat(SourceLookup.LIMIT).as("the production bound").isLessThanOrEqualTo(100_000);
    }
}
