package dev.idem.receiver;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.idem.wire.SigningSecret;
import dev.idem.wire.WebhookSigner;
import dev.idem.wire.testing.MutableClock;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.sql.PreparedStatement;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The framework-free request path the filter, the starter and {@code idem listen} share. */
class ReceiverTest {
    static final String SECRET =
            "whsec_" + java.util.Base64.getEncoder().encodeToString("receiver-core-secret-0123456789".getBytes());
    static final Instant NOW = Instant.parse("2026-11-26T10:00:00Z");

    final MutableClock clock = new MutableClock(NOW);
    final Verifier verifier = Verifier.standardWebhooks(java.util.List.of(SECRET), Duration.ofMinutes(5), clock);
    final AtomicInteger calls = new AtomicInteger();
    TestDatabases.Pool pool;

    @TempDir
    Path dir;

    @AfterEach
    void close() {
        if (pool != null) pool.close();
    }

    Function<String, String> signed(String id, byte[] body) {
        Map<String, String> h = new HashMap<>();
        long ts = clock.instant().getEpochSecond();
        h.put("webhook-id", id);
        h.put("webhook-timestamp", Long.toString(ts));
        h.put("webhook-signature", WebhookSigner.sign(SigningSecret.parse(SECRET), id, ts, body));
        return name -> h.entrySet().stream()
                .filter(e -> e.getKey().equalsIgnoreCase(name))
                .map(Map.Entry::getValue)
                .findFirst()
                .orElse(null);
    }

    static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    static String text(Receipt.Answer a) {
        return new String(a.body(), StandardCharsets.UTF_8);
    }

    @Test
    void aBadSignatureIsRejectedWithItsKeyAndNeitherRunsTheHandlerNorClaimsTheKey() throws Exception {
        Receiver r = Receiver.builder(verifier, new MemoryInbox(clock, Duration.ofMinutes(2)))
                .build();
        byte[] body = bytes("{\"a\":1}");
        Function<String, String> forged = name -> name.equalsIgnoreCase("webhook-signature")
                ? "v1,AAAA"
                : signed("dlv_1", body).apply(name);

        Receipt refused = r.receive(forged, body, d -> "" + calls.incrementAndGet());

        assertThat(refused.status()).isEqualTo(Receipt.Status.REJECTED);
        assertThat(refused.key()).isEqualTo("dlv_1");
        assertThat(refused.reason()).isEqualTo("no signature matches");
        assertThat(refused.answer().status()).isEqualTo(403);
        assertThat(text(refused.answer()))
                .isEqualTo("{\"error\":{\"code\":\"BAD_SIGNATURE\",\"message\":\"no signature matches\"}}");
        assertThat(calls).hasValue(0);
        assertThat(r.receive(signed("dlv_1", body), body, d -> "" + calls.incrementAndGet())
                        .status())
                .isEqualTo(Receipt.Status.PROCESSED);
    }

    @Test
    void aRedeliveryIsADuplicateThatReplaysTheFirstResult() throws Exception {
        Receiver r = Receiver.builder(verifier, new MemoryInbox(clock, Duration.ofMinutes(2)))
                .build();
        byte[] body = bytes("{\"order\":7}");

        Receipt first = r.receive(
                signed("dlv_2", body),
                body,
                d -> "{\"n\":" + calls.incrementAndGet() + ",\"key\":\"" + d.key() + "\"}");
        Receipt again = r.receive(signed("dlv_2", body), body, d -> "{\"n\":" + calls.incrementAndGet() + "}");

        assertThat(first.status()).isEqualTo(Receipt.Status.PROCESSED);
        assertThat(first.answer().status()).isEqualTo(200);
        assertThat(text(first.answer())).isEqualTo("{\"n\":1,\"key\":\"dlv_2\"}");
        assertThat(again.status()).isEqualTo(Receipt.Status.DUPLICATE);
        assertThat(again.answer().headers()).containsEntry("Idempotent-Replayed", "true");
        assertThat(again.answer().contentType()).isEqualTo("application/json");
        assertThat(text(again.answer())).isEqualTo("{\"n\":1,\"key\":\"dlv_2\"}");
        assertThat(calls).hasValue(1);
    }

    @Test
    void aDuplicateWithoutAStoredResultNamesItsKey() throws Exception {
        Receiver r = Receiver.builder(verifier, new MemoryInbox(clock, Duration.ofMinutes(2)))
                .build();
        byte[] body = bytes("x");
        r.receive(signed("dlv_\"q\"", body), body, d -> null);

        Receipt again = r.receive(signed("dlv_\"q\"", body), body, d -> null);

        assertThat(text(again.answer())).isEqualTo("{\"duplicate\":true,\"idempotency_key\":\"dlv_\\\"q\\\"\"}");
    }

    @Test
    void aKeyUnderAnotherWorkersLiveClaimIsInProgressWithRetryAfterRoundedUp() throws Exception {
        MemoryInbox inbox = new MemoryInbox(clock, Duration.ofMinutes(2));
        Receiver r = Receiver.builder(verifier, inbox).build();
        byte[] body = bytes("{}");
        assertThat(inbox.claim("dlv_3", Duration.ofMillis(1500)).granted()).isTrue();

        Receipt busy = r.receive(signed("dlv_3", body), body, d -> "" + calls.incrementAndGet());

        assertThat(busy.status()).isEqualTo(Receipt.Status.IN_PROGRESS);
        assertThat(busy.answer().status()).isEqualTo(409);
        assertThat(busy.answer().headers()).containsEntry("Retry-After", "2");
        assertThat(calls).hasValue(0);
    }

    @Test
    void aThrowingHandlerPropagatesAndLeavesTheKeyForTheRetry() throws Exception {
        Receiver r = Receiver.builder(verifier, new MemoryInbox(clock, Duration.ofMinutes(2)))
                .build();
        byte[] body = bytes("{}");

        assertThatThrownBy(() -> r.receive(signed("dlv_4", body), body, d -> {
                    throw new IllegalStateException("handler broke");
                }))
                .isInstanceOf(IllegalStateException.class)
                .hasMessage("handler broke");

        assertThat(r.receive(signed("dlv_4", body), body, d -> null).status()).isEqualTo(Receipt.Status.PROCESSED);
    }

    @Test
    void overAJdbcInboxTheHandlerWritesInTheClaimingTransaction() throws Exception {
        pool = new TestDatabases.Pool("jdbc:sqlite:" + dir.resolve("r.db") + "?journal_mode=WAL&busy_timeout=10000", 2);
        TestDatabases.exec(pool, "CREATE TABLE orders (idem_key VARCHAR(255))");
        JdbcInbox inbox = JdbcInbox.builder(pool).clock(clock).build();
        Receiver r = Receiver.builder(verifier, inbox).build();
        assertThat(r.transactional()).isTrue();
        byte[] body = bytes("{}");
        Receiver.Handler insertThenFail = d -> {
            insert(d);
            throw new IllegalStateException("after the insert");
        };

        assertThatThrownBy(() -> r.receive(signed("dlv_5", body), body, insertThenFail))
                .hasMessage("after the insert");
        assertThat(TestDatabases.count(pool, "SELECT COUNT(*) FROM orders")).isZero();
        Receipt ok = r.receive(signed("dlv_5", body), body, d -> {
            insert(d);
            return null;
        });
        Receipt dup = r.receive(signed("dlv_5", body), body, d -> {
            insert(d);
            return null;
        });

        assertThat(ok.status()).isEqualTo(Receipt.Status.PROCESSED);
        assertThat(dup.status()).isEqualTo(Receipt.Status.DUPLICATE);
        assertThat(TestDatabases.count(pool, "SELECT COUNT(*) FROM orders WHERE idem_key = 'dlv_5'"))
                .isEqualTo(1);
    }

    private static void insert(Receiver.Delivery d) throws Exception {
        try (PreparedStatement ps =
                d.transaction().orElseThrow().prepareStatement("INSERT INTO orders (idem_key) VALUES (?)")) {
            ps.setString(1, d.key());
            ps.executeUpdate();
        }
    }

    @Test
    void anInboxThatFailsIsUnavailableAnd503NotAnException() throws Exception {
        pool = new TestDatabases.Pool("jdbc:sqlite:" + dir.resolve("gone.db"), 2);
        JdbcInbox inbox =
                JdbcInbox.builder(pool).table("inbox_gone").clock(clock).build();
        TestDatabases.exec(pool, "DROP TABLE inbox_gone");
        Receiver r = Receiver.builder(verifier, inbox).build();
        byte[] body = bytes("{}");

        Receipt down = r.receive(signed("dlv_6", body), body, d -> "" + calls.incrementAndGet());

        assertThat(down.status()).isEqualTo(Receipt.Status.UNAVAILABLE);
        assertThat(down.failure()).isInstanceOf(InboxException.class);
        assertThat(down.reason()).contains("inbox_gone", "dlv_6");
        assertThat(down.answer().status()).isEqualTo(503);
        assertThat(text(down.answer())).contains("INBOX_UNAVAILABLE");
        assertThat(calls).hasValue(0);
    }

    @Test
    void transactionalModeNeedsAnInboxThatCanDoIt() {
        assertThatThrownBy(() -> Receiver.builder(verifier, new MemoryInbox())
                        .transactional(true)
                        .build())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("MemoryInbox");
        assertThat(Receiver.builder(verifier, new MemoryInbox()).build().transactional())
                .isFalse();
    }
}
