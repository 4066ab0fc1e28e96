package dev.idem.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import dev.idem.client.model.BulkReplay;
import dev.idem.client.model.Delivery;
import dev.idem.client.model.FlowControl;
import dev.idem.client.model.Health;
import dev.idem.client.model.ListParams;
import dev.idem.client.model.Occurrence;
import dev.idem.client.model.PreviewRequest;
import dev.idem.client.model.RecurrencePreview;
import dev.idem.client.model.ReplayFilter;
import dev.idem.client.model.RetryPolicy;
import dev.idem.client.model.Schedule;
import dev.idem.client.model.ScheduleCreate;
import dev.idem.client.model.ScheduleUpdate;
import dev.idem.client.model.SigningSecret;
import dev.idem.client.model.Stats;
import dev.idem.client.testing.Receiver;
import dev.idem.client.testing.TestNode;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Every typed call against a real node (server, engine, SQLite store) in this JVM. */
class IdemClientAgainstNodeTest {
    @TempDir
    static Path dir;

    static TestNode node;
    static Receiver receiver;
    static IdemClient idem;

    @BeforeAll
    static void start() throws Exception {
        node = new TestNode(dir);
        receiver = new Receiver();
        idem = node.client();
    }

    @AfterAll
    static void stop() {
        receiver.close();
        node.close();
    }

    @Test
    void aScheduleIsCreatedReadUpdatedPausedResumedAndDeleted() {
        Schedule created = idem.schedules()
                .create(ScheduleCreate.builder("https://example.com/hooks")
                        .fireAt(Instant.parse("2030-01-01T00:00:00Z"))
                        .payload(Map.of("invoice", "in_42"))
                        .eventType("invoice.reminder")
                        .headers(Map.of("X-Tenant", "acme"))
                        .retry(RetryPolicy.of(3, Duration.ofSeconds(2), null, Duration.ofHours(1)))
                        .timeout(Duration.ofSeconds(10))
                        .metadata(Map.of("owner", "billing"))
                        .idempotencyKey("invoice-in_42")
                        .build());
        assertThat(created.id()).startsWith("sch_");
        assertThat(created.status()).isEqualTo("active");
        assertThat(created.kind()).isEqualTo("once");
        assertThat(created.fireAt()).isEqualTo(Instant.parse("2030-01-01T00:00:00Z"));
        assertThat(created.nextFireAt()).isEqualTo(Instant.parse("2030-01-01T00:00:00Z"));
        assertThat(created.payload().get("invoice").asText()).isEqualTo("in_42");
        assertThat(created.headers()).containsEntry("X-Tenant", "acme");
        assertThat(created.retry().maxAttempts()).isEqualTo(3);
        assertThat(created.retry().initialBackoff()).isEqualTo("2s");
        assertThat(created.timeout()).isEqualTo("10s");
        assertThat(created.metadata().get("owner").asText()).isEqualTo("billing");
        assertThat(created.idempotencyKey()).isEqualTo("invoice-in_42");
        assertThat(created.createdAt()).isNotNull();

        assertThat(idem.schedules().get(created.id())).isEqualTo(created);

        Schedule updated = idem.schedules()
                .update(
                        created.id(),
                        ScheduleUpdate.builder()
                                .endpoint("https://example.com/v2")
                                .clear("metadata")
                                .build());
        assertThat(updated.endpoint()).isEqualTo("https://example.com/v2");
        assertThat(updated.metadata()).isNull();

        assertThat(idem.schedules().pause(created.id()).status()).isEqualTo("paused");
        Schedule resumed = idem.schedules().resume(created.id());
        assertThat(resumed.status()).isEqualTo("active");
        assertThat(resumed.consecutiveFailures()).isZero();
        assertThat(idem.schedules().delete(created.id()).status()).isEqualTo("deleted");
        assertThat(idem.schedules().get(created.id()).status()).isEqualTo("deleted");
    }

    @Test
    void recurringSchedulesReadBackTheirRuleZoneAndStart() {
        Schedule s = idem.schedules()
                .create(ScheduleCreate.builder("https://example.com/r")
                        .rrule("FREQ=DAILY;BYHOUR=9")
                        .timezone(ZoneId.of("Europe/Paris"))
                        .dtstart(LocalDateTime.parse("2030-03-01T09:00:00"))
                        .exdates(List.of(LocalDateTime.parse("2030-03-02T09:00:00")))
                        .count(5)
                        .catchUp("none")
                        .build());
        assertThat(s.kind()).isEqualTo("rrule");
        assertThat(s.rrule()).startsWith("FREQ=DAILY");
        assertThat(s.timezone()).isEqualTo("Europe/Paris");
        assertThat(s.dtstart()).isEqualTo(LocalDateTime.parse("2030-03-01T09:00:00"));
        assertThat(s.exdates()).containsExactly(LocalDateTime.parse("2030-03-02T09:00:00"));
        assertThat(s.count()).isEqualTo(5);
        assertThat(s.catchUp()).isEqualTo("none");
        assertThat(s.nextFireAt()).isEqualTo(Instant.parse("2030-03-01T08:00:00Z"));
    }

    @Test
    void autoPagingWalksEveryScheduleOnceNewestFirstOnePageAtATime() {
        List<String> mine = new ArrayList<>();
        for (int i = 0; i < 23; i++)
            mine.add(idem.schedules()
                    .create(ScheduleCreate.builder("https://example.com/p/" + i)
                            .fireAt(Instant.parse("2031-01-01T00:00:00Z"))
                            .build())
                    .id());
        Page<Schedule> first =
                idem.schedules().list(ListParams.builder().limit(5).build());
        assertThat(first.data()).hasSize(5);
        assertThat(first.hasMore()).isTrue();

        List<String> walked = new ArrayList<>();
        for (Schedule s : first.autoPaging()) walked.add(s.id());
        assertThat(new HashSet<>(walked)).as("no schedule twice").hasSameSizeAs(walked);
        List<String> newestFirst = new ArrayList<>(mine);
        java.util.Collections.reverse(newestFirst);
        assertThat(walked.stream().filter(mine::contains).toList())
                .as("all of them, newest first")
                .containsExactlyElementsOf(newestFirst);
        assertThat(first.stream().map(Schedule::id).toList()).isEqualTo(walked);
        assertThat(idem
                        .schedules()
                        .list(ListParams.builder().status("deleted").limit(100).build())
                        .stream())
                .allMatch(s -> s.status().equals("deleted"));
    }

    @Test
    void deliveriesAreListedReadWithTheirAttemptsAndReplayed() {
        Schedule s = idem.schedules()
                .create(ScheduleCreate.builder(receiver.url("/deliver"))
                        .payload(Map.of("n", 1))
                        .build());
        ListParams ofSchedule = ListParams.builder().scheduleId(s.id()).build();
        await().atMost(Duration.ofSeconds(30))
                .until(() -> idem.deliveries().list(ofSchedule).data().stream()
                        .anyMatch(d -> d.status().equals("succeeded")));
        Delivery listed = idem.deliveries().list(ofSchedule).data().get(0);
        assertThat(listed.scheduleId()).isEqualTo(s.id());
        assertThat(listed.attempts()).isNull();
        Instant created = listed.createdAt();
        assertThat(idem.deliveries()
                        .list(ListParams.builder()
                                .scheduleId(s.id())
                                .since(created)
                                .until(created.plusMillis(1))
                                .build())
                        .data())
                .extracting(Delivery::id)
                .containsExactly(listed.id());
        assertThat(idem.deliveries()
                        .list(ListParams.builder()
                                .scheduleId(s.id())
                                .since(created.plusMillis(1))
                                .build())
                        .data())
                .isEmpty();

        Delivery read = idem.deliveries().get(listed.id());
        assertThat(read.attempts()).hasSize(1);
        assertThat(read.attempts().get(0).statusCode()).isEqualTo(200);
        assertThat(read.attempts().get(0).number()).isEqualTo(1);

        Delivery replayed = idem.deliveries().replay(listed.id());
        assertThat(replayed.id()).isEqualTo(listed.id());
        await().atMost(Duration.ofSeconds(30))
                .until(() -> idem.deliveries().get(listed.id()).attempts().size() == 2);
        assertThat(idem.deliveries().get(listed.id()).attempts().get(1).number())
                .isEqualTo(2);
        assertThat(idem
                        .deliveries()
                        .list(ListParams.builder().status("succeeded").build())
                        .stream())
                .allMatch(d -> d.status().equals("succeeded"));
    }

    @Test
    void deadDeliveriesAreReplayedInBulkByFilterAndARetriedKeyReplaysNothingTwice() {
        // nothing listens on port 1: the one attempt allowed fails, the delivery is dead
        String endpoint = "http://127.0.0.1:1/bulk-" + System.nanoTime();
        ScheduleCreate dying = ScheduleCreate.builder(endpoint)
                .retry(new RetryPolicy(1, null, null, null))
                .autoPauseAfter(0)
                .build();
        Schedule a = idem.schedules().create(dying);
        Schedule b = idem.schedules().create(dying);
        awaitDead(a.id(), 1);
        awaitDead(b.id(), 1);

        BulkReplay one = idem.deliveries()
                .replayAll(ReplayFilter.dead()
                        .scheduleId(a.id())
                        .since(Duration.ofHours(1))
                        .build());
        assertThat(one).isEqualTo(new BulkReplay(1, 0, 0, 0, 0));
        awaitDead(a.id(), 2);

        RequestOptions key = RequestOptions.idempotencyKey("bulk-" + System.nanoTime());
        ReplayFilter both = ReplayFilter.dead().endpoint(endpoint).build();
        assertThat(idem.deliveries().replayAll(both, key)).isEqualTo(new BulkReplay(2, 0, 0, 0, 0));
        awaitDead(a.id(), 3);
        awaitDead(b.id(), 2);
        assertThat(idem.deliveries().replayAll(both, key))
                .as("the same key: the first answer, nothing replayed")
                .isEqualTo(new BulkReplay(2, 0, 0, 0, 0));
        assertThat(idem.deliveries()
                        .list(ListParams.builder().scheduleId(b.id()).build())
                        .data()
                        .get(0)
                        .attemptCount())
                .isEqualTo(2);

        IdemException bad = catchThrowableOfType(
                IdemException.class,
                () -> idem.deliveries()
                        .replayAll(ReplayFilter.dead().since("yesterday").build()));
        assertThat(bad.httpStatus()).isEqualTo(400);
        assertThat(bad.param()).isEqualTo("since");
        IdemException noApplication = catchThrowableOfType(
                IdemException.class,
                () -> idem.deliveries()
                        .replayAll(ReplayFilter.dead().application("nobody").build()));
        assertThat(noApplication.param()).isEqualTo("application");
        IdemException noEndpoint = catchThrowableOfType(
                IdemException.class,
                () -> idem.deliveries()
                        .replayAll(ReplayFilter.dead().endpointId("ep_nothere").build()));
        assertThat(noEndpoint.param()).isEqualTo("endpoint_id");
    }

    /** Waits until the schedule's one delivery is dead after {@code attempts} attempts. */
    private static void awaitDead(String scheduleId, int attempts) {
        await().atMost(Duration.ofSeconds(30)).until(() -> {
            Delivery d = idem
                    .deliveries()
                    .list(ListParams.builder().scheduleId(scheduleId).build())
                    .data()
                    .stream()
                    .findFirst()
                    .orElse(null);
            return d != null && d.status().equals("dead") && d.attemptCount() != null && d.attemptCount() == attempts;
        });
    }

    @Test
    void theSigningSecretIsReadAndRotated() {
        SigningSecret before = idem.signingSecret();
        assertThat(before.secret()).startsWith("whsec_");
        assertThat(before.toString()).doesNotContain(before.secret());
        SigningSecret rotated = idem.rotateSigningSecret(RequestOptions.none());
        assertThat(rotated.secret()).startsWith("whsec_").isNotEqualTo(before.secret());
        assertThat(rotated.previousExpiresAt()).isAfter(Instant.now().plus(Duration.ofHours(23)));
        assertThat(idem.signingSecret().secret()).isEqualTo(rotated.secret());
    }

    @Test
    void aRuleIsPreviewedWithoutAnApiKey() {
        IdemClient anonymous =
                IdemClient.create(IdemClientConfig.builder(node.url()).build());
        List<Occurrence> next = anonymous.previewRecurrence(PreviewRequest.rrule("FREQ=DAILY;COUNT=3")
                .dtstart(LocalDateTime.parse("2030-03-30T09:00:00"))
                .timezone(ZoneId.of("Europe/Paris"))
                .build());
        assertThat(next)
                .extracting(Occurrence::local)
                .containsExactly(
                        LocalDateTime.parse("2030-03-30T09:00:00"),
                        LocalDateTime.parse("2030-03-31T09:00:00"),
                        LocalDateTime.parse("2030-04-01T09:00:00"));
        assertThat(next.get(0).utc()).isEqualTo(Instant.parse("2030-03-30T08:00:00Z"));
        assertThat(next.get(1).utc()).as("after the spring change").isEqualTo(Instant.parse("2030-03-31T07:00:00Z"));
        assertThat(anonymous.previewRecurrence(
                        PreviewRequest.cron("0 9 * * MON").count(2).build()))
                .hasSize(2);

        RecurrencePreview whole = anonymous.previewRecurrenceSearch(PreviewRequest.rrule("FREQ=DAILY;COUNT=3")
                .dtstart(LocalDateTime.parse("2030-03-30T09:00:00"))
                .build());
        assertThat(whole.occurrences()).hasSize(3);
        assertThat(whole.stoppedEarly()).as("COUNT ended it").isFalse();
        // one occurrence every 3,601 days: the node's search budget ends the list before 1,000
        RecurrencePreview sparse = anonymous.previewRecurrenceSearch(
                PreviewRequest.rrule("FREQ=SECONDLY;INTERVAL=3601;BYHOUR=0;BYMINUTE=0;BYSECOND=0")
                        .dtstart(LocalDateTime.parse("1970-01-01T00:00:01"))
                        .count(1000)
                        .build());
        assertThat(sparse.stoppedEarly()).isTrue();
        assertThat(sparse.occurrences()).isNotEmpty().hasSizeLessThan(1000);
    }

    @Test
    void statsHealthAndReadinessAreRead() {
        Stats stats = idem.stats();
        assertThat(stats.windowSeconds()).isEqualTo(60);
        assertThat(stats.asOf()).isNotNull();
        assertThat(stats.dead()).isNotNull();
        assertThat(stats.deadCapped()).isFalse();
        assertThat(stats.retryingCapped()).isFalse();
        assertThat(stats.queueDepth()).isNotNull();
        assertThat(stats.queueDepthCapped()).isFalse();
        Health health = idem.health();
        assertThat(health.ok()).isTrue();
        assertThat(health.status()).isEqualTo("ok");
        Health ready = idem.readiness();
        assertThat(ready.ok()).isTrue();
        assertThat(ready.store()).isEqualTo("sqlite");
    }

    @Test
    void errorsCarryTheApisTypeCodeParamRequestIdAndStatus() {
        IdemException bad = catchThrowableOfType(
                IdemException.class,
                () -> idem.schedules()
                        .create(ScheduleCreate.builder("ftp://example.com/x").build()));
        assertThat(bad.httpStatus()).isEqualTo(400);
        assertThat(bad.type()).isEqualTo("invalid_request_error");
        assertThat(bad.code()).isEqualTo("endpoint_invalid");
        assertThat(bad.param()).isEqualTo("endpoint");
        assertThat(bad.requestId()).startsWith("req_");
        assertThat(bad.retryable()).isFalse();
        assertThat(bad.attempts()).isEqualTo(1);
        assertThat(bad.idempotencyKey()).isNotBlank();
        assertThat(bad.getMessage()).contains("HTTP 400", "endpoint_invalid", bad.requestId(), "not retryable");

        IdemException missing =
                catchThrowableOfType(IdemException.class, () -> idem.schedules().get("sch_does_not_exist"));
        assertThat(missing.httpStatus()).isEqualTo(404);
        assertThat(missing.type()).isEqualTo("not_found_error");
        assertThat(missing.code()).isEqualTo("resource_missing");
        assertThat(missing.idempotencyKey()).as("a read carries no key").isNull();

        IdemClient wrongKey = IdemClient.create(
                TestNode.config(node.url()).apiKey("sk_test_wrong_0000000000").build());
        IdemException unauthenticated = catchThrowableOfType(IdemException.class, () -> wrongKey.stats());
        assertThat(unauthenticated.httpStatus()).isEqualTo(401);
        assertThat(unauthenticated.type()).isEqualTo("authentication_error");
        assertThat(unauthenticated.retryable()).isFalse();
    }

    @Test
    void anIdAPathCannotEscapeItsRoute() {
        IdemException e =
                catchThrowableOfType(IdemException.class, () -> idem.schedules().get("../deliveries"));
        assertThat(e.httpStatus()).isEqualTo(404);
    }

    @Test
    void aKeyGivenTwiceReplaysTheFirstAnswerAndADedupIdReturnsTheFirstSchedule() {
        ScheduleCreate req = ScheduleCreate.builder("https://example.com/k")
                .fireAt(Instant.parse("2030-05-01T00:00:00Z"))
                .build();
        IdemResponse<Schedule> first =
                idem.schedules().createWithResponse(req, RequestOptions.idempotencyKey("order-77-reminder"));
        IdemResponse<Schedule> second =
                idem.schedules().createWithResponse(req, RequestOptions.idempotencyKey("order-77-reminder"));
        assertThat(first.status()).isEqualTo(201);
        assertThat(first.replayed()).isFalse();
        assertThat(second.replayed()).isTrue();
        assertThat(second.value()).isEqualTo(first.value());
        assertThat(second.idempotencyKey()).isEqualTo("order-77-reminder");

        IdemException reuse = catchThrowableOfType(
                IdemException.class,
                () -> idem.schedules()
                        .create(
                                ScheduleCreate.builder("https://example.com/other")
                                        .build(),
                                RequestOptions.idempotencyKey("order-77-reminder")));
        assertThat(reuse.httpStatus()).isEqualTo(409);
        assertThat(reuse.code()).isEqualTo("idempotency_key_reuse");
        assertThat(reuse.retryable()).isFalse();

        ScheduleCreate deduped = ScheduleCreate.builder("https://example.com/d")
                .dedupId("job-9")
                .fireAt(Instant.parse("2030-05-01T00:00:00Z"))
                .build();
        Schedule a = idem.schedules().create(deduped);
        IdemResponse<Schedule> b = idem.schedules().createWithResponse(deduped, RequestOptions.none());
        assertThat(b.deduplicated()).isTrue();
        assertThat(b.value().id()).isEqualTo(a.id());
    }

    @Test
    void automaticKeysDifferPerCallSoTwoIdenticalCreatesAreTwoSchedules() {
        ScheduleCreate req = ScheduleCreate.builder("https://example.com/twice")
                .fireAt(Instant.parse("2030-06-01T00:00:00Z"))
                .build();
        IdemResponse<Schedule> a = idem.schedules().createWithResponse(req, RequestOptions.none());
        IdemResponse<Schedule> b = idem.schedules().createWithResponse(req, RequestOptions.none());
        assertThat(a.idempotencyKey()).isNotEqualTo(b.idempotencyKey());
        assertThat(a.value().id()).isNotEqualTo(b.value().id());
    }

    @Test
    void anEndpointWithoutATypedCallIsReachedThroughRequest() {
        IdemResponse<JsonNode> raw = idem.request(
                "POST",
                "/v1/schedules",
                "{\"endpoint\":\"https://example.com/raw\",\"delay\":\"1h\"}",
                JsonNode.class,
                RequestOptions.none());
        assertThat(raw.status()).isEqualTo(201);
        assertThat(raw.value().get("id").asText()).startsWith("sch_");
        assertThat(raw.requestId()).startsWith("req_");
        Schedule typed = idem.request(
                        "GET",
                        "/v1/schedules/" + raw.value().get("id").asText(),
                        null,
                        Schedule.class,
                        RequestOptions.none())
                .value();
        assertThat(typed.endpoint()).isEqualTo("https://example.com/raw");
    }

    @Test
    void aFlowControlAndUnknownFieldsReachTheServerAsGiven() {
        IdemException e = catchThrowableOfType(
                IdemException.class,
                () -> idem.schedules()
                        .create(ScheduleCreate.builder("https://example.com/f")
                                .param("no_such_field", 1)
                                .build()));
        assertThat(e.code()).isEqualTo("parameter_unknown");
        assertThat(e.param()).isEqualTo("no_such_field");
        String json = ScheduleCreate.builder("https://example.com/f")
                .flowControl(new FlowControl("acme-api", 4, 10))
                .build()
                .toJson();
        assertThat(json)
                .isEqualTo(
                        "{\"endpoint\":\"https://example.com/f\",\"flow_control\":{\"key\":\"acme-api\",\"parallelism\":4,\"rate\":10}}");
    }
}
