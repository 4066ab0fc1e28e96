package dev.idem.server.contract;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.idem.store.JdbcStores;
import dev.idem.store.StoreConfig;
import dev.idem.store.testing.TestDatabase;
import dev.idem.store.testing.TestStores;
import dev.idem.wire.StripeSignatureVerifier;
import dev.idem.wire.testing.TcpProxy;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Clock;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Issue 14, item 2: an inbound source's ingest answers 503 while its database is gone, so the provider retries. */
class SourceIngestTroubleTest {
    static final String KEY = ContractServer.TEST_KEY;

    @TempDir
    Path dir;

    private static Map<String, String> signed(String body) {
        return Map.of(
                "Stripe-Signature",
                StripeSignatureVerifier.sign(
                        "whsec_trouble", System.currentTimeMillis() / 1000, body.getBytes(StandardCharsets.UTF_8)),
                "Content-Type",
                "application/json");
    }

    @Test
    void withTheDatabaseGoneIngestIs503AndTheProvidersRetryLaterIsAccepted() throws Exception {
        try (TestDatabase db = TestStores.postgresDatabase();
                TcpProxy proxy = new TcpProxy(
                        PostgresStoreTroubleTest.address(db.config().jdbcUrl()))) {
            StoreConfig viaProxy = new StoreConfig(
                    db.config().jdbcUrl().replaceFirst("//[^/]+/", "//127.0.0.1:" + proxy.port() + "/"),
                    db.config().user(),
                    db.config().password(),
                    8,
                    false,
                    db.config().masterKeys());
            try (ContractServer node = ContractServer.start(JdbcStores.open(viaProxy, Clock.systemUTC()), dir, true)) {
                var created = node.api.call(
                        "POST",
                        "/v1/sources",
                        KEY,
                        "{\"name\":\"s\",\"verify\":{\"scheme\":\"stripe\",\"secret\":"
                                + "\"whsec_trouble\"},\"destination\":\"http://127.0.0.1:9/x\"}");
                assertThat(created.status()).as(created.raw()).isEqualTo(201);
                String id = created.json().get("id").asText();
                String before = "{\"id\":\"evt_before\"}";
                assertThat(node.api
                                .call("POST", "/in/" + id, null, before, signed(before))
                                .status())
                        .isEqualTo(200);

                proxy.cut();
                String during = "{\"id\":\"evt_during\"}";
                var refused = node.api.call("POST", "/in/" + id, null, during, signed(during));
                PostgresStoreTroubleTest.assertUnavailable(refused, "POST /in/{source_id} with the database gone");

                proxy.restore();
                // the provider retries until it gets its 200 (a pooled connection broken by the outage can still cost
                // one
                // more 503 after /readyz is back: each such answer stores nothing, which the count below checks)
                var answer = new java.util.concurrent.atomic.AtomicReference<dev.idem.server.ApiClientForTests.Reply>();
                await().atMost(Duration.ofSeconds(60))
                        .pollInterval(Duration.ofMillis(500))
                        .until(() -> {
                            answer.set(node.api.call("POST", "/in/" + id, null, during, signed(during)));
                            assertThat(answer.get().status())
                                    .as(answer.get().raw())
                                    .isIn(200, 503);
                            return answer.get().status() == 200;
                        });
                var retried = answer.get();
                assertThat(retried.json().get("deduplicated").asBoolean()).isFalse();
                try (var admin = PostgresStoreTroubleTest.admin(db.config());
                        Statement s = admin.createStatement();
                        ResultSet rs =
                                s.executeQuery("SELECT count(*) FROM schedules WHERE source_id = '" + id + "'")) {
                    rs.next();
                    assertThat(rs.getInt(1))
                            .as("one event before, one after, none from the refused request")
                            .isEqualTo(2);
                }
            }
        }
    }
}
