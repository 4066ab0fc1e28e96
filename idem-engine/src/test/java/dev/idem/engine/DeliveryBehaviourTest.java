package dev.idem.engine;

import static java.util.concurrent.TimeUnit.SECONDS;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.idem.core.Attempt;
import dev.idem.core.Delivery;
import dev.idem.core.DeliveryStatus;
import dev.idem.core.RetryPolicy;
import dev.idem.core.Schedule;
import dev.idem.core.ScheduleDefinition;
import dev.idem.core.ScheduleStatus;
import dev.idem.core.store.Store;
import dev.idem.engine.testing.Defs;
import dev.idem.engine.testing.Engines;
import dev.idem.engine.testing.Receiver;
import dev.idem.engine.testing.Receiver.Reply;
import dev.idem.engine.testing.World;
import dev.idem.wire.StandardWebhooksVerifier;
import dev.idem.wire.testing.MutableClock;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The engine against a real store and a real receiver on loopback. Time is a {@link MutableClock} shared by
 * store and engine: a retry becomes due only when the test moves the clock, so nothing here sleeps on backoff.
 */
abstract class DeliveryBehaviourTest {
    @TempDir
    Path dir;

    final MutableClock clock = MutableClock.at("2026-03-10T17:00:00Z");
    final SimpleMeterRegistry meters = new SimpleMeterRegistry();
    Store store;
    World world;
    Receiver receiver;
    Engine engine;

    abstract Store open(Path dir, Clock clock);

    @BeforeEach
    void setUp() throws Exception {
        receiver = Receiver.ok();
        store = open(dir, clock);
        world = new World(store, clock);
    }

    @AfterEach
    void tearDown() {
        if (engine != null) engine.close();
        if (receiver != null) receiver.close();
        if (store != null) store.close();
    }

    Engine start(EngineConfig config) {
        engine = new Engine(store, config, clock, new SplittableRandom(11), meters);
        engine.start();
        return engine;
    }

    Engine start() {
        return start(Engines.fast("node-a"));
    }

    ScheduleDefinition once() {
        return Defs.once(receiver.url("/hook"), clock.instant());
    }

    ScheduleDefinition retrying(int maxAttempts, int autoPauseAfter) {
        return Defs.retry(
                once(),
                new RetryPolicy(maxAttempts, Duration.ofSeconds(1), Duration.ofSeconds(1), Duration.ofHours(1)),
                Duration.ofSeconds(5),
                autoPauseAfter);
    }

    void awaitStatus(String deliveryId, DeliveryStatus status) {
        await().atMost(10, SECONDS).until(() -> world.delivery(deliveryId).status() == status);
    }

    java.util.Optional<Delivery> find(String id) {
        return store.inTransaction(tx -> tx.deliveries().find(Defs.TENANT, id));
    }

    java.util.Optional<Schedule> findSchedule(String id) {
        return store.inTransaction(tx -> tx.schedules().find(Defs.TENANT, id));
    }

    /** Moves time past the next attempt of a retrying delivery and wakes the dispatcher. */
    void nextRetryIsDue(String deliveryId) {
        awaitStatus(deliveryId, DeliveryStatus.RETRYING);
        clock.set(world.delivery(deliveryId).nextAttemptAt());
        engine.wakeUp();
    }

    @Test
    void aDueOneShotArrivesWithEveryHeaderAVerifiableSignatureAndTheEnvelope() {
        start();
        Delivery d = world.create(
                Defs.with(once(), null, null, null, Map.of("X-Customer", "acme"), "invoice.reminder", null));
        engine.wakeUp();

        awaitStatus(d.id(), DeliveryStatus.SUCCEEDED);
        List<Receiver.Request> got = receiver.requestsFor(d.id());
        assertThat(got).hasSize(1);
        Receiver.Request r = got.get(0);
        assertThat(r.header("webhook-id")).isEqualTo(d.id());
        assertThat(r.header("webhook-timestamp"))
                .isEqualTo(Long.toString(clock.instant().getEpochSecond()));
        assertThat(r.header("Idempotency-Key")).isEqualTo(d.id());
        assertThat(r.header("Idem-Schedule-Id")).isEqualTo(d.scheduleId());
        assertThat(r.header("Idem-Delivery-Id")).isEqualTo(d.id());
        assertThat(r.header("Idem-Scheduled-For")).isEqualTo("2026-03-10T17:00:00.000Z");
        assertThat(r.header("Idem-Attempt")).isEqualTo("1");
        assertThat(r.header("Idem-Sequence")).isEqualTo("1");
        assertThat(r.header("Idem-Event-Type")).isEqualTo("invoice.reminder");
        assertThat(r.header("User-Agent")).startsWith("idem/");
        assertThat(r.header("Content-Type")).isEqualTo("application/json");
        assertThat(r.header("X-Customer")).isEqualTo("acme");
        StandardWebhooksVerifier verifier =
                new StandardWebhooksVerifier(List.of(world.secret), Duration.ofMinutes(5), clock);
        assertThat(verifier.verify(
                                r.header("webhook-id"),
                                r.header("webhook-timestamp"),
                                r.header("webhook-signature"),
                                r.body())
                        .valid())
                .isTrue();
        assertThat(r.bodyText())
                .startsWith("{\"schedule_id\":\"" + d.scheduleId() + "\",\"delivery_id\":\"" + d.id() + "\"")
                .contains(
                        "\"attempt\":1",
                        "\"sequence\":1",
                        "\"timezone\":\"UTC\"",
                        "\"event_type\":\"invoice.reminder\"",
                        "\"input\":{\"type\":\"once\",\"value\":\"2026-03-10T17:00:00.000Z\"}");

        List<Attempt> attempts = world.attempts(d.id());
        assertThat(attempts).singleElement().satisfies(a -> {
            assertThat(a.number()).isEqualTo(1);
            assertThat(a.statusCode()).isEqualTo(200);
            assertThat(a.error()).isNull();
            assertThat(a.responseBody()).isEqualTo("{\"ok\":true}");
        });
        assertThat(meters.get("idem.deliveries")
                        .tag("outcome", "succeeded")
                        .counter()
                        .count())
                .isEqualTo(1.0);
        assertThat(meters.get("idem.delivery.lag").timer().count()).isEqualTo(1);
        assertThat(meters.get("idem.attempt.duration")
                        .tag("result", "2xx")
                        .timer()
                        .count())
                .isEqualTo(1);
    }

    @Test
    void theQueueDepthGaugeCountsThePendingDeliveriesAtEachReap() {
        start();
        Instant later = clock.instant().plus(Duration.ofHours(1));
        List<Delivery> pending = world.createEach(List.of(
                Defs.once(receiver.url("/hook"), later),
                Defs.once(receiver.url("/hook"), later.plusSeconds(600)),
                Defs.once(receiver.url("/hook"), later.plusSeconds(1200))));
        engine.reapNow();
        assertThat(meters.get("idem.queue.depth").gauge().value())
                .as("three deliveries due in an hour")
                .isEqualTo(3.0);

        clock.set(later);
        engine.wakeUp();
        awaitStatus(pending.get(0).id(), DeliveryStatus.SUCCEEDED);
        engine.reapNow();
        assertThat(meters.get("idem.queue.depth").gauge().value())
                .as("the first delivered, two due 10 and 20 minutes later")
                .isEqualTo(2.0);
    }

    @Test
    void afterTwoRotationsWithinADayEachRequestVerifiesWithEveryOneOfTheThreeSecrets() {
        dev.idem.wire.SigningSecret middle = dev.idem.wire.SigningSecret.generate(new SplittableRandom(98));
        dev.idem.wire.SigningSecret fresh = dev.idem.wire.SigningSecret.generate(new SplittableRandom(99));
        store.useTransaction(tx -> tx.signingSecrets()
                .save(new dev.idem.core.SigningSecrets(Defs.TENANT, world.secret)
                        .rotatedTo(middle, clock.instant().minus(Duration.ofHours(2)))
                        .rotatedTo(fresh, clock.instant().minus(Duration.ofHours(1)))));
        start();
        Delivery d = world.create(once());
        engine.wakeUp();
        awaitStatus(d.id(), DeliveryStatus.SUCCEEDED);
        Receiver.Request r = receiver.requestsFor(d.id()).get(0);
        assertThat(r.header("webhook-signature").split(" ")).hasSize(3);
        for (dev.idem.wire.SigningSecret secret : List.of(fresh, middle, world.secret))
            assertThat(new StandardWebhooksVerifier(List.of(secret), Duration.ofMinutes(5), clock)
                            .verify(d.id(), r.header("webhook-timestamp"), r.header("webhook-signature"), r.body())
                            .valid())
                    .isTrue();
    }

    @Test
    void theMaterialiserWritesEveryScheduleThatEntersTheHorizonPageByPageOnce() {
        start();
        Instant later = clock.instant().plus(Duration.ofHours(1));
        List<String> ids = new java.util.ArrayList<>();
        for (int i = 0; i < 250; i++)
            ids.add(world.createScheduleOnly(Defs.once(receiver.url("/hook"), later.plusMillis(i)))
                    .id());
        clock.set(later.minusSeconds(5));
        // races the engine's own materialiser run: between them each occurrence is written once
        engine.materialiseNow();
        await().atMost(10, SECONDS)
                .until(() -> ids.stream().allMatch(id -> world.schedule(id).nextFireAt() == null));
        assertThat(ids)
                .allSatisfy(id -> assertThat(world.schedule(id).status())
                        .as("written, not yet delivered")
                        .isEqualTo(ScheduleStatus.ACTIVE));
        clock.set(later.plusSeconds(1));
        engine.wakeUp();
        await().atMost(20, SECONDS).until(() -> receiver.requests().size() == 250);
        assertThat(receiver.requests().stream()
                        .map(r -> r.header("Idem-Schedule-Id"))
                        .distinct())
                .hasSize(250);
        await().atMost(10, SECONDS)
                .until(() -> ids.stream().allMatch(id -> world.schedule(id).status() == ScheduleStatus.COMPLETED));
    }

    @Test
    void aPayloadIsSentVerbatimAndSigned() {
        start();
        String payload = "{\"invoice\":  \"in_42\", \"amount\":12.50}";
        Delivery d = world.create(Defs.with(once(), payload, null, null, Map.of(), null, "order-42"));
        engine.wakeUp();
        awaitStatus(d.id(), DeliveryStatus.SUCCEEDED);
        Receiver.Request r = receiver.requestsFor(d.id()).get(0);
        assertThat(r.bodyText()).isEqualTo(payload);
        assertThat(r.header("Idempotency-Key")).isEqualTo("order-42");
        assertThat(new StandardWebhooksVerifier(List.of(world.secret), Duration.ofMinutes(5), clock)
                        .verify(d.id(), r.header("webhook-timestamp"), r.header("webhook-signature"), r.body())
                        .valid())
                .isTrue();
    }

    @Test
    void retriesKeepWebhookIdAndIdempotencyKeyWhileIdemAttemptCountsUp() {
        AtomicInteger calls = new AtomicInteger();
        receiver.respond(r -> calls.incrementAndGet() < 3 ? Reply.status(500) : Reply.ok());
        start();
        Delivery d = world.create(Defs.with(retrying(5, 0), null, null, null, Map.of(), null, "order-9"));
        engine.wakeUp();
        nextRetryIsDue(d.id());
        nextRetryIsDue(d.id());
        awaitStatus(d.id(), DeliveryStatus.SUCCEEDED);

        List<Receiver.Request> got = receiver.requestsFor(d.id());
        assertThat(got).extracting(Receiver.Request::attempt).containsExactly(1, 2, 3);
        assertThat(got).extracting(r -> r.header("Idempotency-Key")).containsOnly("order-9");
        assertThat(got).extracting(r -> r.header("Idem-Delivery-Id")).containsOnly(d.id());
        assertThat(got)
                .extracting(r -> r.bodyText().contains("\"attempt\":" + r.attempt()))
                .containsOnly(true);
        assertThat(world.attempts(d.id()))
                .extracting(Attempt::number, Attempt::statusCode)
                .containsExactly(
                        org.assertj.core.groups.Tuple.tuple(1, 500),
                        org.assertj.core.groups.Tuple.tuple(2, 500),
                        org.assertj.core.groups.Tuple.tuple(3, 200));
    }

    @Test
    void aDeliveryIsDeadAfterMaxAttemptsWithItsLastError() {
        receiver.respond(r -> Reply.status(503).withBody("down for maintenance"));
        start();
        Delivery d = world.create(retrying(3, 0));
        engine.wakeUp();
        nextRetryIsDue(d.id());
        nextRetryIsDue(d.id());
        awaitStatus(d.id(), DeliveryStatus.DEAD);
        Delivery dead = world.delivery(d.id());
        assertThat(dead.lastError()).isEqualTo("HTTP 503");
        assertThat(dead.attemptCount()).isEqualTo(3);
        assertThat(world.attempts(d.id()))
                .hasSize(3)
                .last()
                .satisfies(a -> assertThat(a.responseBody()).isEqualTo("down for maintenance"));
        assertThat(receiver.requestsFor(d.id())).hasSize(3);
        assertThat(meters.get("idem.deliveries")
                        .tag("outcome", "dead")
                        .counter()
                        .count())
                .isEqualTo(1.0);
    }

    @Test
    void retryAfterOn429IsHonouredWithinThePolicyBounds() {
        receiver.respond(r -> Reply.status(429).withHeader("Retry-After", "120"));
        start();
        RetryPolicy policy = new RetryPolicy(5, Duration.ofSeconds(5), Duration.ofMinutes(10), Duration.ofHours(1));
        Delivery d = world.create(Defs.retry(once(), policy, Duration.ofSeconds(5), 0));
        engine.wakeUp();
        awaitStatus(d.id(), DeliveryStatus.RETRYING);
        assertThat(world.delivery(d.id()).nextAttemptAt())
                .isEqualTo(clock.instant().plusSeconds(120));
    }

    @Test
    void retryAfterAsAnHttpDateOn503IsHonoured() {
        String date = java.time.format.DateTimeFormatter.RFC_1123_DATE_TIME.format(
                clock.instant().plusSeconds(300).atZone(java.time.ZoneOffset.UTC));
        receiver.respond(r -> Reply.status(503).withHeader("Retry-After", date));
        start();
        RetryPolicy policy = new RetryPolicy(5, Duration.ofSeconds(5), Duration.ofMinutes(10), Duration.ofHours(1));
        Delivery d = world.create(Defs.retry(once(), policy, Duration.ofSeconds(5), 0));
        engine.wakeUp();
        awaitStatus(d.id(), DeliveryStatus.RETRYING);
        assertThat(world.delivery(d.id()).nextAttemptAt())
                .isEqualTo(clock.instant().plusSeconds(300));
    }

    @Test
    void redirectsAreNotFollowedAndCountAsFailures() {
        receiver.respond(r -> r.path().equals("/hook")
                ? Reply.status(302).withHeader("Location", receiver.url("/elsewhere"))
                : Reply.ok());
        start();
        Delivery d = world.create(retrying(3, 0));
        engine.wakeUp();
        awaitStatus(d.id(), DeliveryStatus.RETRYING);
        assertThat(receiver.requests()).extracting(Receiver.Request::path).containsExactly("/hook");
        assertThat(world.attempts(d.id())).singleElement().satisfies(a -> {
            assertThat(a.statusCode()).isEqualTo(302);
            assertThat(a.error()).contains("redirect not followed").contains("/elsewhere");
        });
    }

    @Test
    void aResponseSlowerThanTheTimeoutIsAFailedAttempt() {
        receiver.respond(r -> Reply.ok().after(Duration.ofSeconds(3)));
        start();
        Delivery d = world.create(Defs.retry(
                once(),
                new RetryPolicy(3, Duration.ofSeconds(1), Duration.ofSeconds(1), Duration.ofHours(1)),
                Duration.ofMillis(500),
                0));
        engine.wakeUp();
        awaitStatus(d.id(), DeliveryStatus.RETRYING);
        assertThat(world.attempts(d.id())).singleElement().satisfies(a -> {
            assertThat(a.statusCode()).isNull();
            assertThat(a.error()).startsWith("timeout");
            assertThat(a.durationMs()).isBetween(400L, 2500L);
        });
    }

    @Test
    void aRefusedConnectionIsAFailedAttempt() throws Exception {
        int closedPort;
        try (java.net.ServerSocket s = new java.net.ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
            closedPort = s.getLocalPort();
        }
        start();
        Delivery d = world.create(Defs.retry(
                Defs.once("http://127.0.0.1:" + closedPort + "/hook", clock.instant()),
                new RetryPolicy(3, Duration.ofSeconds(1), Duration.ofSeconds(1), Duration.ofHours(1)),
                Duration.ofSeconds(2),
                0));
        engine.wakeUp();
        awaitStatus(d.id(), DeliveryStatus.RETRYING);
        assertThat(world.delivery(d.id()).lastError())
                .isEqualTo("connection failed: could not connect to 127.0.0.1:" + closedPort
                        + " (refused or unreachable)");
    }

    @Test
    void aConnectionClosedBeforeAnyResponseIsAFailedAttemptAndTheReceiverSeesOneRequestPerAttempt() throws Exception {
        java.util.concurrent.atomic.AtomicInteger requests = new java.util.concurrent.atomic.AtomicInteger();
        try (java.net.ServerSocket hangUp =
                new java.net.ServerSocket(0, 50, java.net.InetAddress.getLoopbackAddress())) {
            Thread t = new Thread(() -> {
                while (!hangUp.isClosed()) {
                    try (java.net.Socket s = hangUp.accept()) {
                        // the whole head (the body is small): then close without a byte of response
                        byte[] buf = new byte[65536];
                        int n = s.getInputStream().read(buf);
                        if (n > 0
                                && new String(buf, 0, n, java.nio.charset.StandardCharsets.ISO_8859_1)
                                        .startsWith("POST")) requests.incrementAndGet();
                    } catch (java.io.IOException e) {
                        return;
                    }
                }
            });
            t.setDaemon(true);
            t.start();
            start();
            Delivery d = world.create(Defs.retry(
                    Defs.once("http://127.0.0.1:" + hangUp.getLocalPort() + "/hook", clock.instant()),
                    new RetryPolicy(2, Duration.ofSeconds(1), Duration.ofSeconds(1), Duration.ofHours(1)),
                    Duration.ofSeconds(2),
                    0));
            engine.wakeUp();
            nextRetryIsDue(d.id());
            awaitStatus(d.id(), DeliveryStatus.DEAD);
            assertThat(world.delivery(d.id()).lastError())
                    .startsWith("I/O error talking to 127.0.0.1:" + hangUp.getLocalPort());
            Thread.sleep(300); // a resent copy, if any, would arrive within this
            assertThat(world.attempts(d.id())).hasSize(2);
            assertThat(requests.get())
                    .as("requests read by the receiver for 2 attempts")
                    .isEqualTo(2);
        }
    }

    @Test
    void anAttemptTheHttpClientCannotMakeIsARecordedFailureThatCountsTowardsDeadAndAutoPause() {
        start();
        // written through the store directly: the API refuses such an endpoint at create time
        Delivery d = world.create(Defs.retry(
                Defs.once("http://127.0.0.1:99999/x", clock.instant()),
                new RetryPolicy(2, Duration.ofSeconds(1), Duration.ofSeconds(1), Duration.ofHours(1)),
                Duration.ofSeconds(2),
                2));
        engine.wakeUp();
        awaitStatus(d.id(), DeliveryStatus.RETRYING);
        assertThat(world.attempts(d.id()))
                .singleElement()
                .satisfies(a -> assertThat(a.error()).contains("99999"));
        assertThat(world.schedule(d.scheduleId()).consecutiveFailures()).isEqualTo(1);

        nextRetryIsDue(d.id());
        awaitStatus(d.id(), DeliveryStatus.DEAD);
        assertThat(world.attempts(d.id())).hasSize(2);
        Schedule s = world.schedule(d.scheduleId());
        assertThat(s.status()).isEqualTo(ScheduleStatus.PAUSED);
        assertThat(s.pausedReason()).isEqualTo(Schedule.PAUSED_BY_FAILURES);
    }

    @Test
    void anEndpointThatDoesNotParseIsARecordedFailedAttemptNotALeaseLoop() {
        start();
        Delivery d = world.create(Defs.retry(
                Defs.once("http://exa mple.com/x", clock.instant()),
                new RetryPolicy(1, Duration.ofSeconds(1), Duration.ofSeconds(1), Duration.ofHours(1)),
                Duration.ofSeconds(2),
                0));
        engine.wakeUp();
        awaitStatus(d.id(), DeliveryStatus.DEAD);
        assertThat(world.attempts(d.id()))
                .singleElement()
                .satisfies(a -> assertThat(a.error()).startsWith("endpoint refused"));
        assertThat(world.delivery(d.id()).leaseOwner()).isNull();
    }

    @Test
    void replaySendsADeadDeliveryAgainWithTheSameKeyAndTheNextAttemptNumber() {
        receiver.respond(r -> Reply.status(500));
        start();
        Delivery d = world.create(retrying(1, 0));
        engine.wakeUp();
        awaitStatus(d.id(), DeliveryStatus.DEAD);

        receiver.respond(r -> Reply.ok());
        boolean requeued =
                store.inTransaction(tx -> tx.deliveries().requeueForReplay(Defs.TENANT, d.id(), clock.instant()));
        assertThat(requeued).isTrue();
        store.queue().notifyDue();
        awaitStatus(d.id(), DeliveryStatus.SUCCEEDED);
        assertThat(receiver.requestsFor(d.id()))
                .extracting(Receiver.Request::attempt)
                .containsExactly(1, 2);
        assertThat(receiver.requestsFor(d.id()))
                .extracting(r -> r.header("Idempotency-Key"))
                .containsOnly(d.idempotencyKey());
    }

    @Test
    void aFailedReplayOfAnExhaustedDeliveryIsDeadAgain() {
        receiver.respond(r -> Reply.status(500));
        start();
        Delivery d = world.create(retrying(1, 0));
        engine.wakeUp();
        awaitStatus(d.id(), DeliveryStatus.DEAD);
        store.inTransaction(tx -> tx.deliveries().requeueForReplay(Defs.TENANT, d.id(), clock.instant()));
        engine.wakeUp();
        await().atMost(10, SECONDS).until(() -> world.attempts(d.id()).size() == 2);
        awaitStatus(d.id(), DeliveryStatus.DEAD);
    }

    @Test
    void aFailedReplayOfASucceededDeliveryIsDeadThoughItsPolicyAllowsMoreAttempts() {
        start();
        Delivery d = world.create(retrying(8, 0));
        engine.wakeUp();
        awaitStatus(d.id(), DeliveryStatus.SUCCEEDED);
        receiver.respond(r -> Reply.status(500));
        store.inTransaction(tx -> tx.deliveries().requeueForReplay(Defs.TENANT, d.id(), clock.instant()));
        engine.wakeUp();
        await().atMost(10, SECONDS).until(() -> world.attempts(d.id()).size() == 2);
        awaitStatus(d.id(), DeliveryStatus.DEAD);
        assertThat(world.attempts(d.id())).hasSize(2);
    }

    @Test
    void consecutiveFailuresPauseTheScheduleAndPauseStopsItsAttempts() {
        receiver.respond(r -> Reply.status(500));
        start();
        ScheduleDefinition hourly = Defs.hourly(receiver.url("/hook"), clock.instant(), "UTC");
        Delivery d = world.create(Defs.retry(
                hourly,
                new RetryPolicy(10, Duration.ofSeconds(1), Duration.ofSeconds(1), Duration.ofHours(1)),
                Duration.ofSeconds(5),
                2));
        engine.wakeUp();
        nextRetryIsDue(d.id());
        await().atMost(10, SECONDS).until(() -> world.schedule(d.scheduleId()).status() == ScheduleStatus.PAUSED);
        Schedule paused = world.schedule(d.scheduleId());
        assertThat(paused.pausedReason()).isEqualTo("consecutive_failures");
        assertThat(paused.consecutiveFailures()).isEqualTo(2);

        clock.advance(Duration.ofMinutes(5));
        engine.wakeUp();
        await().during(300, java.util.concurrent.TimeUnit.MILLISECONDS)
                .atMost(2, SECONDS)
                .until(() -> receiver.requestsFor(d.id()).size() == 2);
    }

    @Test
    void aRecurringOccurrenceCarriesItsRuleZoneAndPerOccurrenceKey() {
        start();
        ScheduleDefinition hourly = Defs.with(
                Defs.hourly(receiver.url("/hook"), clock.instant(), "Europe/Paris"),
                null,
                null,
                null,
                Map.of(),
                null,
                "report");
        Delivery d = world.create(hourly);
        engine.wakeUp();
        awaitStatus(d.id(), DeliveryStatus.SUCCEEDED);
        Receiver.Request r = receiver.requestsFor(d.id()).get(0);
        assertThat(r.header("Idempotency-Key")).isEqualTo("report:2026-03-10T17:00:00.000Z");
        assertThat(r.bodyText())
                .contains("\"timezone\":\"Europe/Paris\"", "\"input\":{\"type\":\"rrule\",\"value\":\"FREQ=HOURLY\"}");
    }

    /** A one-shot due 600 ms from now (the test's clock stands still), once the engine has claimed it ahead. */
    private Delivery claimedAhead() {
        start();
        Delivery d =
                world.create(Defs.once(receiver.url("/hook"), clock.instant().plusMillis(600)));
        engine.wakeUp();
        await().atMost(5, SECONDS).until(() -> world.delivery(d.id()).status() == DeliveryStatus.DELIVERING);
        return d;
    }

    @Test
    void aDeliveryClaimedAheadIsNotSentWhenItsSchedulePausesBeforeItsInstantAndGoesOutOnceResumed() {
        Delivery d = claimedAhead();
        Schedule s = world.schedule(d.scheduleId());
        store.useTransaction(tx ->
                tx.schedules().update(s.withStatus(ScheduleStatus.PAUSED, Schedule.PAUSED_BY_USER, s.updatedAt())));

        await().atMost(5, SECONDS).until(() -> world.delivery(d.id()).status() == DeliveryStatus.SCHEDULED);
        assertThat(world.delivery(d.id()).attemptCount())
                .as("given back unattempted")
                .isZero();
        await().during(800, java.util.concurrent.TimeUnit.MILLISECONDS)
                .atMost(2, SECONDS)
                .until(() -> receiver.requestsFor(d.id()).isEmpty());

        store.useTransaction(tx -> tx.schedules().update(s.withStatus(ScheduleStatus.ACTIVE, null, s.updatedAt())));
        clock.advance(Duration.ofSeconds(1));
        engine.wakeUp();
        awaitStatus(d.id(), DeliveryStatus.SUCCEEDED);
        assertThat(receiver.requestsFor(d.id())).hasSize(1);
    }

    @Test
    void aDeliveryClaimedAheadIsCancelledUnsentWhenItsScheduleIsDeletedBeforeItsInstant() {
        Delivery d = claimedAhead();
        Schedule s = world.schedule(d.scheduleId());
        store.useTransaction(tx -> tx.schedules().update(s.withStatus(ScheduleStatus.DELETED, null, s.updatedAt())));

        awaitStatus(d.id(), DeliveryStatus.CANCELLED);
        clock.advance(Duration.ofSeconds(1));
        engine.wakeUp();
        await().during(800, java.util.concurrent.TimeUnit.MILLISECONDS)
                .atMost(2, SECONDS)
                .until(() -> receiver.requestsFor(d.id()).isEmpty());
    }

    @Test
    void aDeliveryClaimedAheadGoesOutWithTheNewDefinitionWhenItsScheduleIsPatchedBeforeItsInstant() {
        Delivery d = claimedAhead();
        Schedule s = world.schedule(d.scheduleId());
        store.useTransaction(tx -> tx.schedules()
                .update(s.withDefinition(s.definition().withEndpoint(receiver.url("/moved")), s.updatedAt())));

        awaitStatus(d.id(), DeliveryStatus.SUCCEEDED);
        assertThat(receiver.requestsFor(d.id()))
                .as("given back unattempted, claimed again with the new endpoint")
                .singleElement()
                .satisfies(r -> {
                    assertThat(r.path()).isEqualTo("/moved");
                    assertThat(r.attempt()).isEqualTo(1);
                });
    }

    @Test
    void aSuccessResetsConsecutiveFailures() {
        AtomicInteger calls = new AtomicInteger();
        receiver.respond(r -> calls.incrementAndGet() == 1 ? Reply.status(500) : Reply.ok());
        start();
        Delivery d = world.create(retrying(5, 5));
        engine.wakeUp();
        awaitStatus(d.id(), DeliveryStatus.RETRYING);
        assertThat(world.schedule(d.scheduleId()).consecutiveFailures()).isEqualTo(1);
        nextRetryIsDue(d.id());
        awaitStatus(d.id(), DeliveryStatus.SUCCEEDED);
        assertThat(world.schedule(d.scheduleId()).consecutiveFailures()).isZero();
    }

    @Test
    void aDeliveryWhoseHolderDiedIsReclaimedWithTheSameIdAndKeyAndTheNextAttempt() {
        Delivery d = world.create(once());
        // a node that claimed it and died: its lease runs out, nobody completes it
        assertThat(store.queue().claimDue("dead-node", Duration.ofSeconds(90), 10))
                .hasSize(1);
        start();
        engine.wakeUp();
        assertThat(receiver.requests()).isEmpty();

        clock.advance(Duration.ofSeconds(91));
        awaitStatus(d.id(), DeliveryStatus.SUCCEEDED);
        assertThat(receiver.requestsFor(d.id())).singleElement().satisfies(r -> {
            assertThat(r.attempt()).isEqualTo(2);
            assertThat(r.header("Idempotency-Key")).isEqualTo(d.idempotencyKey());
        });
        assertThat(meters.get("idem.leases.reclaimed").counter().count()).isEqualTo(1.0);
    }

    @Test
    void closeLetsInFlightRequestsFinishWithinTheGraceAndReleasesTheRest() {
        receiver.respond(r -> r.header("Idem-Attempt").equals("1") && r.path().equals("/slow")
                ? Reply.ok().after(Duration.ofSeconds(4))
                : Reply.ok().after(Duration.ofMillis(200)));
        start(Engines.fast("node-a").toBuilder()
                .shutdownGrace(Duration.ofMillis(800))
                .build());
        Delivery quick = world.create(once());
        Delivery slow = world.create(Defs.once(receiver.url("/slow"), clock.instant()));
        engine.wakeUp();
        await().atMost(5, SECONDS).until(() -> receiver.requests().size() == 2);
        engine.close();

        assertThat(world.delivery(quick.id()).status()).isEqualTo(DeliveryStatus.SUCCEEDED);
        Delivery released = world.delivery(slow.id());
        assertThat(released.status()).isEqualTo(DeliveryStatus.RETRYING);
        assertThat(released.leaseOwner()).isNull();
    }

    @Test
    void deliveriesOfAClaimWhoseAnswerWasLostAreReleasedAndSentAgainAtOnceNotAfterTheirLease() throws Exception {
        List<Delivery> due = world.createMany(once(), 5);
        java.util.Map<String, Integer> sentWithAttempt = new java.util.concurrent.ConcurrentHashMap<>();
        java.util.concurrent.ExecutorService senders = java.util.concurrent.Executors.newFixedThreadPool(4);
        java.util.concurrent.ScheduledExecutorService timer =
                java.util.concurrent.Executors.newSingleThreadScheduledExecutor();
        // the lease (90 s) outlives the test, and no reaper runs: only the dispatcher's own recovery can free the rows
        dev.idem.engine.internal.Dispatcher dispatcher = new dev.idem.engine.internal.Dispatcher(
                new dev.idem.engine.testing.LossyClaims(store.queue(), 1),
                Engines.fast("node-a").toBuilder()
                        .lease(Duration.ofSeconds(90))
                        .maxRequestTimeout(Duration.ofSeconds(30))
                        .build(),
                clock,
                senders,
                timer,
                new dev.idem.engine.testing.InstantAttempts(claim -> sentWithAttempt.merge(
                        claim.delivery().id(), claim.delivery().attemptCount(), (a, b) -> -1)));
        Thread loop = new Thread(dispatcher.claimLoop());
        loop.start();
        try {
            dispatcher.wakeUp();
            await().atMost(10, SECONDS).until(() -> sentWithAttempt.size() == due.size());
            // the lost claim counted as attempt 1 (its lease was taken), as a reclaimed lease does
            assertThat(sentWithAttempt)
                    .containsOnlyKeys(due.stream().map(Delivery::id).toList())
                    .allSatisfy((id, attempt) -> assertThat(attempt)
                            .as("attempt of " + id + " (-1: sent twice)")
                            .isEqualTo(2));
        } finally {
            dispatcher.stop();
            loop.join(5_000);
            senders.shutdownNow();
            timer.shutdownNow();
        }
    }

    @Test
    void theMaterialiserWritesAFutureOccurrenceWhenItEntersTheHorizonAndItGoesOutOnTime() {
        start();
        Schedule s = world.createScheduleOnly(
                Defs.once(receiver.url("/hook"), clock.instant().plus(Duration.ofHours(2))));
        assertThat(engine.materialiseNow()).isZero();
        clock.advance(Duration.ofHours(2).minusSeconds(10));
        engine.materialiseNow();
        await().atMost(5, SECONDS).until(() -> world.schedule(s.id()).nextFireAt() == null);
        engine.wakeUp();
        await().during(200, java.util.concurrent.TimeUnit.MILLISECONDS)
                .atMost(2, SECONDS)
                .until(() -> receiver.requests().isEmpty());
        clock.advance(Duration.ofSeconds(10));
        engine.wakeUp();
        await().atMost(10, SECONDS).until(() -> receiver.requests().size() == 1);
    }

    @Test
    void finishedDeliveriesAndTheirCompletedOneShotsAreGoneAfterTheRetentionAndPendingOnesStay() {
        start();
        Delivery done = world.create(once());
        engine.wakeUp();
        awaitStatus(done.id(), DeliveryStatus.SUCCEEDED);
        Delivery later =
                world.create(Defs.once(receiver.url("/hook"), clock.instant().plus(Duration.ofDays(40))));

        clock.advance(Duration.ofDays(29));
        engine.pruneNow();
        assertThat(find(done.id())).isPresent();
        assertThat(findSchedule(done.scheduleId())).isPresent();
        clock.advance(Duration.ofDays(2));
        engine.pruneNow();
        assertThat(find(done.id())).isEmpty();
        assertThat(world.attempts(done.id())).isEmpty();
        assertThat(findSchedule(done.scheduleId())).isEmpty();
        assertThat(find(later.id())).isPresent();
        assertThat(findSchedule(later.scheduleId())).isPresent();
    }

    @Test
    void underARetentionShorterThanTheDedupWindowACompletedOneShotOutlivesItsDeliveryUntilTheWindowEnds() {
        start(Engines.fast("node-a").toBuilder().retention(Duration.ofHours(1)).build());
        Delivery done = world.create(once());
        engine.wakeUp();
        awaitStatus(done.id(), DeliveryStatus.SUCCEEDED);
        await().atMost(10, SECONDS)
                .until(() -> world.schedule(done.scheduleId()).status() == dev.idem.core.ScheduleStatus.COMPLETED);

        clock.advance(Duration.ofHours(2));
        engine.pruneNow();
        assertThat(find(done.id())).isEmpty();
        assertThat(findSchedule(done.scheduleId())).isPresent();
        clock.advance(Duration.ofHours(23));
        engine.pruneNow();
        assertThat(findSchedule(done.scheduleId())).isEmpty();
    }

    @Test
    void withoutAllowPrivateEndpointsALoopbackEndpointIsRefusedAtConnectTime() {
        start(Engines.fast("node-a").toBuilder().allowPrivateEndpoints(false).build());
        Delivery d = world.create(retrying(3, 0));
        engine.wakeUp();
        awaitStatus(d.id(), DeliveryStatus.RETRYING);
        assertThat(receiver.requests()).isEmpty();
        assertThat(world.delivery(d.id()).lastError())
                .startsWith("endpoint refused")
                .contains("loopback");
    }

    @Test
    void aDeliveryDueInTheFutureLeavesWithinMillisecondsOfItsDueTime() {
        // this test runs on real time: the store must see the same clock
        store.close();
        store = open(dir, Clock.systemUTC());
        world = new World(store, Clock.systemUTC());
        engine = new Engine(
                store,
                Engines.fast("node-a").toBuilder()
                        .pollInterval(Duration.ofSeconds(5))
                        .build(),
                Clock.systemUTC(),
                new SplittableRandom(1),
                meters);
        engine.start();
        Instant due = Instant.now().plusMillis(700);
        world.create(Defs.once(receiver.url("/hook"), due));
        engine.wakeUp();
        await().atMost(5, SECONDS).until(() -> receiver.requests().size() == 1);
        long lagMs = receiver.requests().get(0).arrivedMillis() - due.toEpochMilli();
        // Not a speed figure (the bench measures lag): the row must be started by the dispatcher's timer at its
        // instant, never early, and not by the next poll 5 s after the start (4.3 s late). Half the poll interval
        // tells the two apart on a machine loaded enough to delay a timer by a second.
        assertThat(lagMs).as("lag from due time to arrival, ms").isBetween(-1L, 2_500L);
    }
}
