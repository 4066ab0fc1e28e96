package dev.idem.server.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.idem.core.IdGenerator;
import dev.idem.core.Mode;
import dev.idem.core.Source;
import dev.idem.core.Tenant;
import dev.idem.core.store.Store;
import dev.idem.store.testing.TestStores;
import dev.idem.wire.GitHubSignatureVerifier;
import dev.idem.wire.testing.MutableClock;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.SplittableRandom;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A flood of made-up source ids spends the node's budget of store reads for unknown ids; a real source's correctly
 * signed events are still accepted, on both stores: one the node never saw (created before it started, or on another
 * node), one it knows whose cached copy has gone stale, and one created during the flood. Time stands still while the
 * flood spends the budget, so it does not refill.
 */
class SourceIngestFloodTest {
    private static final String SECRET = "gh-secret";

    @TempDir
    Path dir;

    private Store open(String store, MutableClock clock) {
        return store.equals("sqlite") ? TestStores.sqlite(dir, clock) : TestStores.postgres(clock);
    }

    @ParameterizedTest
    @ValueSource(strings = {"sqlite", "postgresql"})
    void aRealSourcesEventsAreAcceptedWhileUnknownIdsHaveSpentTheLookupBudget(String kind) {
        MutableClock clock = MutableClock.at("2030-01-01T00:00:00Z");
        try (Store store = open(kind, clock)) {
            IdGenerator ids = new IdGenerator(clock, new SplittableRandom(7));
            Source before = insert(store, ids, clock.instant());
            SourceIngest ingest = new SourceIngest(store, ids, clock);

            int refused = 0;
            for (int i = 0; i < 3 * SourceLookup.UNKNOWN_LOOKUPS_PER_SECOND && refused == 0; i++) {
                try {
                    ingest.ingest(ids.next("src"), Map.of(), "application/json", new byte[0]);
                } catch (ApiException e) {
                    if (e.status() == 429) refused++;
                    else assertThat(e.status()).isEqualTo(404);
                }
            }
            assertThat(refused).as("the flood spent the budget for unknown ids").isPositive();
            assertThatThrownBy(() -> ingest.ingest(ids.next("src"), Map.of(), "application/json", new byte[0]))
                    .extracting(e -> ((ApiException) e).status())
                    .isEqualTo(429);

            assertThat(event(ingest, before, "1").status()).isEqualTo(200);
            clock.advance(SourceLookup.FRESH_FOR.plusMillis(1));
            assertThat(event(ingest, before, "2").status())
                    .as("read again when stale")
                    .isEqualTo(200);

            Source during = insert(store, ids, clock.instant());
            clock.advance(SourceLookup.SCAN_EVERY);
            assertThat(event(ingest, during, "3").status())
                    .as("created during the flood")
                    .isEqualTo(200);
        }
    }

    private static SourceIngest.Answer event(SourceIngest ingest, Source s, String eventId) {
        byte[] body = ("{\"id\":\"" + eventId + "\"}").getBytes(StandardCharsets.UTF_8);
        return ingest.ingest(
                s.id(),
                Map.of("X-Hub-Signature-256", GitHubSignatureVerifier.sign(SECRET, body), "X-GitHub-Delivery", eventId),
                "application/json",
                body);
    }

    private static Source insert(Store store, IdGenerator ids, Instant now) {
        Source s = new Source(
                ids.next("src"),
                new Tenant("proj_flood", Mode.LIVE),
                "github",
                "github",
                SECRET,
                java.util.List.of(),
                null,
                null,
                Duration.ofMinutes(5),
                "https://93.184.216.34/hook",
                "auto",
                Source.DEFAULT_RATE_LIMIT,
                false,
                now,
                now);
        store.useTransaction(tx -> tx.sources().insert(s));
        return s;
    }
}
