package dev.idem.client.outbox;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.idem.client.IdemClient;
import dev.idem.client.model.ListParams;
import dev.idem.client.model.Schedule;
import dev.idem.client.model.ScheduleCreate;
import dev.idem.client.testing.AppDatabase;
import dev.idem.client.testing.LoopbackProxy;
import dev.idem.client.testing.RelayChild;
import dev.idem.client.testing.TestNode;
import dev.idem.wire.testing.MutableClock;
import java.net.ServerSocket;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The outbox on one database, sending to a real node (in this JVM) through a loopback proxy that counts every request
 * and its key. Each test uses its own table, so tests share the node and the database but no rows.
 */
abstract class OutboxContract {
    @TempDir
    static Path dir;

    static TestNode node;
    static LoopbackProxy proxy;
    AppDatabase db;
    IdemOutbox outbox;
    String table;

    /** This database, made for the test class. */
    abstract AppDatabase database(Path dir);

    @BeforeAll
    static void startNode() throws Exception {
        node = new TestNode(dir.resolve("idem"));
        proxy = new LoopbackProxy(node.port());
    }

    @AfterAll
    static void stopNode() throws Exception {
        proxy.close();
        node.close();
    }

    private static final Map<Class<?>, AppDatabase> DATABASES = new java.util.concurrent.ConcurrentHashMap<>();

    @BeforeEach
    void freshTable() {
        db = DATABASES.computeIfAbsent(getClass(), c -> {
            AppDatabase d = database(dir);
            Runtime.getRuntime().addShutdownHook(new Thread(d::close));
            return d;
        });
        table = "outbox_" + UUID.randomUUID().toString().replace("-", "").substring(0, 12);
        outbox = IdemOutbox.builder().table(table).build();
        outbox.createTable(db.dataSource());
        db.exec("CREATE TABLE IF NOT EXISTS orders (id VARCHAR(64) PRIMARY KEY, amount INT)");
    }

    /** A relay client through the proxy: two attempts, short waits, so its worst-case call is about a minute. */
    static IdemClient client() {
        return IdemClient.create(TestNode.config(proxy.url())
                .maxAttempts(2)
                .maxRetryAfter(Duration.ofSeconds(1))
                .build());
    }

    OutboxRelay.Builder relay(IdemClient client) {
        return OutboxRelay.builder(outbox, db.dataSource(), client).pollInterval(Duration.ofMillis(50));
    }

    static ScheduleCreate reminder(String order) {
        return ScheduleCreate.builder("https://example.com/orders/" + order)
                .fireAt(Instant.parse("2030-01-01T00:00:00Z"))
                .payload(Map.of("order", order))
                .build();
    }

    /** A business write and its outbox row in one transaction; {@code commit} false rolls both back. */
    String placeOrder(String order, boolean commit) throws SQLException {
        try (Connection tx = db.dataSource().getConnection()) {
            tx.setAutoCommit(false);
            try (PreparedStatement ps = tx.prepareStatement("INSERT INTO orders (id, amount) VALUES (?, ?)")) {
                ps.setString(1, order);
                ps.setInt(2, 42);
                ps.executeUpdate();
            }
            String id = outbox.enqueue(tx, reminder(order));
            if (commit) tx.commit();
            else tx.rollback();
            return id;
        }
    }

    OutboxRow row(String id) throws SQLException {
        try (Connection c = db.dataSource().getConnection()) {
            return outbox.find(c, id).orElseThrow();
        }
    }

    /** The node's schedules for an order (the endpoint carries the order id). */
    static List<Schedule> schedulesFor(String order) {
        return node.client().schedules().list(ListParams.builder().limit(100).build()).stream()
                .filter(s -> s.endpoint().equals("https://example.com/orders/" + order))
                .toList();
    }

    static String order() {
        return "o-" + UUID.randomUUID();
    }

    @Test
    void aRolledBackTransactionLeavesNothingToSend() throws Exception {
        String order = order();
        String id = placeOrder(order, false);
        int requestsBefore = proxy.requests().size();

        assertThat(relay(client()).build().runOnce()).isZero();
        try (Connection c = db.dataSource().getConnection()) {
            assertThat(outbox.find(c, id)).isEmpty();
        }
        assertThat(db.count("SELECT COUNT(*) FROM " + table)).isZero();
        assertThat(proxy.requests()).hasSize(requestsBefore);
        assertThat(schedulesFor(order)).isEmpty();
    }

    @Test
    void aCommittedRowIsSentOnceWithItsIdAsTheKeyAndMarkedWithItsSchedule() throws Exception {
        String order = order();
        String id = placeOrder(order, true);
        assertThat(id).startsWith("obx_");
        assertThat(row(id).status()).isEqualTo("pending");

        OutboxRelay relay = relay(client()).build();
        assertThat(relay.runOnce()).isEqualTo(1);
        OutboxRow sent = row(id);
        assertThat(sent.status()).isEqualTo("sent");
        assertThat(sent.attempts()).isEqualTo(1);
        assertThat(sent.claimedBy()).isNull();
        assertThat(sent.sentAt()).isNotNull();
        List<Schedule> created = schedulesFor(order);
        assertThat(created).hasSize(1);
        assertThat(sent.scheduleId()).isEqualTo(created.get(0).id());
        assertThat(created.get(0).payload().get("order").asText()).isEqualTo(order);
        assertThat(proxy.requestsWithKey(id)).hasSize(1);

        assertThat(relay.runOnce()).isZero();
        assertThat(proxy.requestsWithKey(id)).hasSize(1);
    }

    @Test
    void aRelayKilledBetweenSendAndMarkLeavesTheRowToTheNextRelayWhichGetsTheSameScheduleBack() throws Exception {
        String order = order();
        String id = placeOrder(order, true);
        // Idem gets the child's request and commits; its answer is held until the child is dead
        proxy.holdAnswers();
        int answersBefore = proxy.answersArrived();
        Process child = RelayChild.start(db.url(), table, proxy.url(), TestNode.API_KEY, 50);
        try {
            await().atMost(Duration.ofSeconds(60)).until(() -> proxy.answersArrived() > answersBefore);
            assertThat(schedulesFor(order)).as("Idem created it").hasSize(1);
        } finally {
            child.destroyForcibly();
            assertThat(child.waitFor(30, TimeUnit.SECONDS)).isTrue();
            proxy.releaseAnswers();
        }
        OutboxRow orphan = row(id);
        assertThat(orphan.status()).as("the child died before its mark").isEqualTo("pending");
        assertThat(orphan.claimedBy()).startsWith("child/");

        Clock afterLease = Clock.offset(Clock.systemUTC(), RelayChild.LEASE.plusSeconds(5));
        OutboxRelay next = relay(client()).clock(afterLease).build();
        assertThat(next.runOnce()).isEqualTo(1);

        List<Schedule> created = schedulesFor(order);
        assertThat(created).as("one schedule, though two relays sent the row").hasSize(1);
        assertThat(proxy.requestsWithKey(id)).hasSize(2);
        OutboxRow sent = row(id);
        assertThat(sent.status()).isEqualTo("sent");
        assertThat(sent.scheduleId()).isEqualTo(created.get(0).id());
        assertThat(sent.attempts()).isEqualTo(2);
    }

    @Test
    void twoRelaysOnOneTableSendEachRowOnce() throws Exception {
        List<String> ids = new ArrayList<>();
        List<String> orders = new ArrayList<>();
        for (int i = 0; i < 40; i++) {
            String order = order();
            orders.add(order);
            ids.add(placeOrder(order, true));
        }
        ExecutorService pool = Executors.newFixedThreadPool(2);
        try {
            List<Future<Integer>> runs = new ArrayList<>();
            for (int r = 0; r < 2; r++) {
                OutboxRelay relay =
                        relay(client()).batchSize(3).relayId("relay-" + r).build();
                runs.add(pool.submit(() -> {
                    int total = 0;
                    while (db.count("SELECT COUNT(*) FROM " + table + " WHERE status <> 'sent'") > 0)
                        total += relay.runOnce();
                    return total;
                }));
            }
            int a = runs.get(0).get(120, TimeUnit.SECONDS);
            int b = runs.get(1).get(120, TimeUnit.SECONDS);
            assertThat(a + b).isEqualTo(40);
            assertThat(a).as("both relays took part").isPositive();
            assertThat(b).isPositive();
        } finally {
            pool.shutdownNow();
        }
        for (String id : ids) {
            assertThat(proxy.requestsWithKey(id)).as("requests for row %s", id).hasSize(1);
            assertThat(row(id).status()).isEqualTo("sent");
        }
        Set<String> scheduleIds = new HashSet<>();
        for (String id : ids) scheduleIds.add(row(id).scheduleId());
        assertThat(scheduleIds).hasSize(40);
        assertThat(schedulesFor(orders.get(17))).hasSize(1);
    }

    @Test
    void aClaimedRowIsLeftAloneUntilItsLeaseEnds() throws Exception {
        String order = order();
        String id = placeOrder(order, true);
        MutableClock clock = MutableClock.at(Instant.now());
        OutboxRelay stuck =
                relay(client()).clock(clock).lease(Duration.ofMinutes(3)).build();
        proxy.holdRequests();
        CompletableFuture<Integer> first = CompletableFuture.supplyAsync(stuck::runOnce);
        try {
            await().atMost(Duration.ofSeconds(30)).until(() -> row(id).claimedBy() != null);
            OutboxRelay other = relay(node.client()).clock(clock).build();
            assertThat(other.runOnce()).as("claimed by the first relay").isZero();
            clock.advance(Duration.ofMinutes(2));
            assertThat(other.runOnce()).as("still within the lease").isZero();
            clock.advance(Duration.ofMinutes(1).plusSeconds(1));
            assertThat(other.runOnce()).as("the lease ended: taken over").isEqualTo(1);
        } finally {
            proxy.releaseRequests();
        }
        assertThat(first.get(60, TimeUnit.SECONDS))
                .as("its send was answered (a replay) but its claim was gone")
                .isEqualTo(1);
        assertThat(schedulesFor(order)).hasSize(1);
        assertThat(row(id).scheduleId()).isEqualTo(schedulesFor(order).get(0).id());
    }

    @Test
    void aRequestIdemRefusesIsMarkedFailedWithTheErrorAndNotRetried() throws Exception {
        String id;
        try (Connection tx = db.dataSource().getConnection()) {
            tx.setAutoCommit(false);
            id = outbox.enqueue(
                    tx, ScheduleCreate.builder("ftp://example.com/not-http").build());
            tx.commit();
        }
        OutboxRelay relay = relay(client()).build();
        assertThat(relay.runOnce()).isZero();
        OutboxRow failed = row(id);
        assertThat(failed.status()).isEqualTo("failed");
        assertThat(failed.lastError()).contains("invalid_request_error/endpoint_invalid");
        assertThat(relay.runOnce()).isZero();
        assertThat(proxy.requestsWithKey(id)).hasSize(1);
    }

    @Test
    void anUnreachableIdemPutsTheRowBackWithBackoffUntilItAnswers() throws Exception {
        String order = order();
        String id = placeOrder(order, true);
        MutableClock clock = MutableClock.at(Instant.now());
        IdemClient nowhere = IdemClient.create(TestNode.config("http://127.0.0.1:" + closedPort())
                .maxAttempts(1)
                .build());
        OutboxRelay down = relay(nowhere)
                .clock(clock)
                .backoff(Duration.ofSeconds(10), Duration.ofMinutes(5))
                .build();
        assertThat(down.runOnce()).isZero();
        OutboxRow waiting = row(id);
        assertThat(waiting.status()).isEqualTo("pending");
        assertThat(waiting.attempts()).isEqualTo(1);
        assertThat(waiting.lastError()).contains("connection_refused");
        assertThat(Duration.between(clock.instant(), waiting.availableAt()))
                .isBetween(Duration.ofSeconds(5), Duration.ofSeconds(10));

        assertThat(down.runOnce()).isZero();
        assertThat(row(id).attempts()).as("not due yet").isEqualTo(1);
        clock.advance(Duration.ofSeconds(11));
        assertThat(down.runOnce()).isZero();
        OutboxRow again = row(id);
        assertThat(again.attempts()).isEqualTo(2);
        assertThat(Duration.between(clock.instant(), again.availableAt()))
                .as("doubled")
                .isBetween(Duration.ofSeconds(10), Duration.ofSeconds(20));

        clock.advance(Duration.ofSeconds(21));
        assertThat(relay(client()).clock(clock).build().runOnce()).isEqualTo(1);
        assertThat(row(id).status()).isEqualTo("sent");
        assertThat(row(id).lastError()).isNull();
        assertThat(schedulesFor(order)).hasSize(1);
    }

    @Test
    void aRowFirstSentLongerAgoThanIdemKeepsItsKeyIsFailedRatherThanRiskASecondSchedule() throws Exception {
        String id = placeOrder(order(), true);
        MutableClock clock = MutableClock.at(Instant.now());
        IdemClient nowhere = IdemClient.create(TestNode.config("http://127.0.0.1:" + closedPort())
                .maxAttempts(1)
                .build());
        relay(nowhere).clock(clock).build().runOnce();
        clock.advance(Duration.ofHours(23).plusMinutes(1));
        int before = proxy.requests().size();
        assertThat(relay(client()).clock(clock).build().runOnce()).isZero();
        OutboxRow expired = row(id);
        assertThat(expired.status()).isEqualTo("failed");
        assertThat(expired.lastError()).startsWith("key_window_passed");
        assertThat(proxy.requests()).hasSize(before);
    }

    @Test
    void enqueueRefusesAConnectionOutsideATransactionAndWritesNothing() throws Exception {
        try (Connection c = db.dataSource().getConnection()) {
            c.setAutoCommit(true);
            assertThatThrownBy(() -> outbox.enqueue(c, reminder("x")))
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("auto-commit");
        }
        assertThat(db.count("SELECT COUNT(*) FROM " + table)).isZero();
    }

    @Test
    void theTableIsCreatedOnceAndItsDdlCanBeRunByHand() throws Exception {
        outbox.createTable(db.dataSource());
        String other = table + "_byhand";
        OutboxDatabase kind;
        try (Connection c = db.dataSource().getConnection()) {
            kind = OutboxDatabase.valueOf(
                    dev.idem.client.internal.OutboxDialect.of(c).name());
        }
        for (String sql : IdemOutbox.ddl(kind, other)) db.exec(sql);
        IdemOutbox byHand = IdemOutbox.builder().table(other).build();
        try (Connection tx = db.dataSource().getConnection()) {
            tx.setAutoCommit(false);
            byHand.enqueue(tx, reminder(order()));
            tx.commit();
        }
        assertThat(db.count("SELECT COUNT(*) FROM " + other + " WHERE status = 'pending'"))
                .isEqualTo(1);
        assertThatThrownBy(
                        () -> IdemOutbox.builder().table("x; DROP TABLE orders").build())
                .hasMessageContaining("plain SQL identifier");
    }

    @Test
    void sentRowsArePrunedAfterTheirRetentionAndPendingOnesKept() throws Exception {
        String sent = placeOrder(order(), true);
        MutableClock clock = MutableClock.at(Instant.now());
        OutboxRelay relay = relay(client()).clock(clock).build();
        assertThat(relay.runOnce()).isEqualTo(1);
        String pending = placeOrder(order(), true);
        clock.advance(Duration.ofDays(8));
        assertThat(relay.pruneSent(Duration.ofDays(7))).isEqualTo(1);
        try (Connection c = db.dataSource().getConnection()) {
            assertThat(outbox.find(c, sent)).isEmpty();
            assertThat(outbox.find(c, pending)).isPresent();
        }
    }

    @Test
    void aRelayThreadSendsWhatIsCommittedAndStopsOnClose() throws Exception {
        String order = order();
        try (OutboxRelay relay = relay(client()).build().start()) {
            String id = placeOrder(order, true);
            await().atMost(Duration.ofSeconds(30)).until(() -> row(id).isSent());
        }
        assertThat(schedulesFor(order)).hasSize(1);
    }

    static int closedPort() throws java.io.IOException {
        try (ServerSocket s = new ServerSocket(0)) {
            return s.getLocalPort();
        }
    }
}
