package dev.idem.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.idem.client.IdemClient;
import dev.idem.client.IdemClientConfig;
import dev.idem.client.model.ListParams;
import dev.idem.client.model.RetryPolicy;
import dev.idem.client.model.Schedule;
import dev.idem.client.model.ScheduleCreate;
import dev.idem.client.outbox.IdemOutbox;
import dev.idem.client.outbox.OutboxRelay;
import dev.idem.client.outbox.OutboxRow;
import dev.idem.client.testing.AppDatabase;
import dev.idem.client.testing.LoopbackProxy;
import dev.idem.client.testing.RelayChild;
import dev.idem.examples.servlet.ServletReceiver;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The whole exactly-once chain, each part a real process or a real database, with a crash at every hop:
 *
 * <pre>
 *   orders + idem_outbox (PostgreSQL, one transaction per order)
 *     → outbox relay ──proxy A──→ idem (fat jar, SQLite) ──proxy B──→ Servlet example (inbox + reminders on PostgreSQL)
 * </pre>
 *
 * <ol>
 *   <li>a relay process is killed after Idem committed its first row and before it could mark it;</li>
 *   <li>the idem node is killed (SIGKILL) after committing another row's schedule and before its answer left, then
 *       started again on the same data directory;</li>
 *   <li>the receiver's answer to its first deliveries is lost after its handler committed, so Idem retries them.</li>
 * </ol>
 *
 * Orders rolled back with their outbox row must have no effect; every committed order exactly one reminder row.
 */
class OutboxToReceiverExactlyOnceIT {
    static final int COMMITTED = 30;
    static final int ROLLED_BACK = 10;
    static final int RECEIVER_ANSWERS_LOST = 5;
    static final ObjectMapper JSON = new ObjectMapper();

    @TempDir
    Path dir;

    @Test
    void everyCommittedOrderHasExactlyOneEffectAtTheReceiverThoughEveryHopCrashed() throws Exception {
        try (AppDatabase producer = AppDatabase.postgres();
                AppDatabase receiverDb = AppDatabase.postgres();
                IdemProcess idem = new IdemProcess(dir).start();
                LoopbackProxy toIdem = new LoopbackProxy(idem.port())) {
            IdemClient admin = IdemClient.create(IdemClientConfig.builder(idem.url())
                    .apiKey(IdemProcess.API_KEY)
                    .build());
            String secret = admin.signingSecret().secret();
            try (ServletReceiver receiver = new ServletReceiver(secret, 0, receiverDb.url());
                    LoopbackProxy toReceiver = new LoopbackProxy(receiver.port())) {
                toReceiver.dropNextAnswers(RECEIVER_ANSWERS_LOST);
                String endpoint = toReceiver.url() + "/webhooks/reminders";

                // the business writes: each order and its reminder request in one transaction
                IdemOutbox outbox = IdemOutbox.builder().build();
                outbox.createTable(producer.dataSource());
                producer.exec("CREATE TABLE orders (id VARCHAR(64) PRIMARY KEY, amount INT NOT NULL)");
                Map<String, String> rowOfOrder = new HashMap<>();
                List<String> rolledBack = new ArrayList<>();
                for (int i = 0; i < COMMITTED + ROLLED_BACK; i++) {
                    String order =
                            "ord_" + i + "_" + UUID.randomUUID().toString().substring(0, 8);
                    boolean commit = i % 4 != 3 || rolledBack.size() >= ROLLED_BACK;
                    if (!commit && rowOfOrder.size() + rolledBack.size() >= COMMITTED + ROLLED_BACK) commit = true;
                    String row = placeOrder(producer, outbox, order, endpoint, commit);
                    if (commit) rowOfOrder.put(order, row);
                    else rolledBack.add(order);
                }
                assertThat(rowOfOrder).hasSize(COMMITTED);
                assertThat(rolledBack).hasSize(ROLLED_BACK);
                assertThat(producer.count("SELECT COUNT(*) FROM idem_outbox")).isEqualTo(COMMITTED);

                // hop 1: a relay process dies after Idem committed its first row, before marking it
                toIdem.holdAnswers();
                int arrived = toIdem.answersArrived();
                Process child = RelayChild.start(producer.url(), "idem_outbox", toIdem.url(), IdemProcess.API_KEY, 1);
                try {
                    await().atMost(Duration.ofSeconds(90)).until(() -> toIdem.answersArrived() > arrived);
                } finally {
                    child.destroyForcibly();
                    assertThat(child.waitFor(30, TimeUnit.SECONDS)).isTrue();
                    toIdem.releaseAnswers();
                }
                List<String> orphaned = claimedBy(producer, "child/");
                assertThat(orphaned).as("the child held one row when it died").hasSize(1);

                // hop 2: the relay that takes over (its clock past the dead child's lease) loses an answer because
                // the idem node is killed right after committing; the node comes back on the same data directory
                toIdem.holdAnswers();
                int before = toIdem.answersArrived();
                IdemClient relayClient = IdemClient.create(IdemClientConfig.builder(toIdem.url())
                        .apiKey(IdemProcess.API_KEY)
                        .maxAttempts(2)
                        .initialBackoff(Duration.ofMillis(100))
                        .maxBackoff(Duration.ofMillis(500))
                        .maxRetryAfter(Duration.ofSeconds(1))
                        .requestTimeout(Duration.ofSeconds(20))
                        .build());
                Clock afterChildLease = Clock.offset(Clock.systemUTC(), RelayChild.LEASE.plusSeconds(5));
                try (OutboxRelay relay = OutboxRelay.builder(outbox, producer.dataSource(), relayClient)
                        .clock(afterChildLease)
                        .batchSize(10)
                        .pollInterval(Duration.ofMillis(100))
                        .backoff(Duration.ofMillis(200), Duration.ofSeconds(2))
                        .build()
                        .start()) {
                    await().atMost(Duration.ofSeconds(60)).until(() -> toIdem.answersArrived() > before);
                    idem.kill();
                    toIdem.dropNextAnswers(1);
                    toIdem.releaseAnswers();
                    idem.start();
                    toIdem.upstream(idem.port());
                    await().atMost(Duration.ofSeconds(120))
                            .until(() -> producer.count("SELECT COUNT(*) FROM idem_outbox WHERE status = 'sent'")
                                    == COMMITTED);
                }
                assertThat(producer.count("SELECT COUNT(*) FROM idem_outbox WHERE status <> 'sent'"))
                        .isZero();
                String orphanKey = orphaned.get(0);
                assertThat(toIdem.requestsWithKey(orphanKey))
                        .as("the orphaned row was sent by the child and again by the new relay")
                        .hasSizeGreaterThanOrEqualTo(2);
                assertThat(toIdem.answersDropped()).isEqualTo(1);
                assertThat(rowOfOrder.values())
                        .as("the row whose answer died with the node was sent again, with its key")
                        .anyMatch(row -> !row.equals(orphanKey)
                                && toIdem.requestsWithKey(row).size() >= 2);

                // Idem: one schedule per committed order, none for a rolled-back one, each the one its row names
                IdemClient after = IdemClient.create(IdemClientConfig.builder(idem.url())
                        .apiKey(IdemProcess.API_KEY)
                        .build());
                Map<String, Schedule> scheduleOfOrder = new HashMap<>();
                for (Schedule s : after.schedules()
                        .list(ListParams.builder().limit(100).build())
                        .autoPaging()) {
                    String order = s.payload().get("order").asText();
                    assertThat(scheduleOfOrder.put(order, s))
                            .as("a second schedule for %s", order)
                            .isNull();
                }
                assertThat(scheduleOfOrder.keySet()).containsExactlyInAnyOrderElementsOf(rowOfOrder.keySet());
                try (Connection c = producer.dataSource().getConnection()) {
                    for (var e : rowOfOrder.entrySet()) {
                        OutboxRow row = outbox.find(c, e.getValue()).orElseThrow();
                        assertThat(row.scheduleId())
                                .isEqualTo(scheduleOfOrder.get(e.getKey()).id());
                    }
                }

                // hop 3 happens as the deliveries arrive: the receiver's first answers are lost after its commit
                await().atMost(Duration.ofSeconds(180))
                        .until(() -> after.deliveries()
                                        .list(ListParams.builder()
                                                .status("succeeded")
                                                .limit(100)
                                                .build())
                                        .data()
                                        .size()
                                == COMMITTED);
                assertThat(toReceiver.answersDropped()).isEqualTo(RECEIVER_ANSWERS_LOST);
                assertThat(toReceiver.requests())
                        .as("each lost answer's delivery reached the receiver again")
                        .hasSizeGreaterThanOrEqualTo(COMMITTED + RECEIVER_ANSWERS_LOST);

                Map<String, Integer> effects = reminders(receiver);
                assertThat(effects.keySet()).containsExactlyInAnyOrderElementsOf(rowOfOrder.keySet());
                assertThat(effects.values())
                        .as("exactly one effect per committed order")
                        .containsOnly(1);
            }
        }
    }

    private static String placeOrder(AppDatabase db, IdemOutbox outbox, String order, String endpoint, boolean commit)
            throws Exception {
        try (Connection tx = db.dataSource().getConnection()) {
            tx.setAutoCommit(false);
            try (PreparedStatement ps = tx.prepareStatement("INSERT INTO orders (id, amount) VALUES (?, ?)")) {
                ps.setString(1, order);
                ps.setInt(2, 100);
                ps.executeUpdate();
            }
            // due 20 s after Idem accepts it: no delivery is in flight while the node is killed
            String row = outbox.enqueue(
                    tx,
                    ScheduleCreate.builder(endpoint)
                            .delay("20s")
                            .payload(Map.of("order", order))
                            .retry(RetryPolicy.of(10, Duration.ofSeconds(1), Duration.ofSeconds(4), null))
                            .build());
            if (commit) tx.commit();
            else tx.rollback();
            return row;
        }
    }

    private static List<String> claimedBy(AppDatabase db, String prefix) throws Exception {
        List<String> ids = new ArrayList<>();
        try (Connection c = db.dataSource().getConnection();
                PreparedStatement ps = c.prepareStatement(
                        "SELECT id FROM idem_outbox WHERE claimed_by LIKE ? AND status = 'pending'")) {
            ps.setString(1, prefix + "%");
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) ids.add(rs.getString(1));
            }
        }
        return ids;
    }

    /** Reminder rows the receiver wrote, counted per order. */
    private static Map<String, Integer> reminders(ServletReceiver receiver) throws Exception {
        Map<String, Integer> perOrder = new HashMap<>();
        try (Connection c = receiver.dataSource().getConnection();
                ResultSet rs = c.createStatement().executeQuery("SELECT body FROM reminders")) {
            while (rs.next()) {
                JsonNode body = JSON.readTree(rs.getString(1));
                perOrder.merge(body.get("order").asText(), 1, Integer::sum);
            }
        }
        return perOrder;
    }
}
