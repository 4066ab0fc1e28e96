package dev.idem.server.contract;

import static dev.idem.server.contract.BadInputContract.assertRefused;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import dev.idem.core.Delivery;
import dev.idem.core.IdGenerator;
import dev.idem.core.Materialisation;
import dev.idem.core.Mode;
import dev.idem.core.Schedule;
import dev.idem.core.Tenant;
import dev.idem.core.fanout.ScheduledFanOut;
import dev.idem.core.store.ScheduleRepository.CursorMove;
import dev.idem.server.ApiClientForTests;
import dev.idem.server.LoopbackReceiver;
import java.nio.charset.StandardCharsets;
import java.security.SecureRandom;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;

/**
 * Scheduled fan-out on every store alike: a schedule with a {@code target} makes each occurrence one message (its
 * id derived from the schedule and the occurrence) to the endpoints subscribed when it fires. Occurrences far in the
 * future are fired here by calling the materialiser's own step with their time as now, so the test moves time
 * instead of waiting; a due one-shot is fired by the node's engine and reaches a loopback receiver. Each test has an
 * application and an event type of its own, so no test's endpoints receive another's messages.
 */
abstract class ScheduledFanOutContract extends OneNodeContract {
    private final IdGenerator ids = new IdGenerator(Clock.systemUTC(), new SecureRandom());

    private Tenant tenant() {
        return new Tenant(node.defaultProjectId(), Mode.TEST);
    }

    private static String id(ApiClientForTests.Reply r) {
        assertThat(r.status()).as(r.raw()).isBetween(200, 201);
        return r.json().get("id").asText();
    }

    /** A new application's uid and an event type name, both unique to the calling test. */
    private String[] applicationAndEventType() {
        String uid = "cust_" + UUID.randomUUID();
        id(call("POST", "/v1/applications", "{\"name\":\"C\",\"uid\":\"" + uid + "\"}"));
        return new String[] {uid, "report.daily" + UUID.randomUUID().toString().replace("-", "")};
    }

    private String endpoint(String uid, String eventType, String path) {
        return id(call(
                "POST",
                "/v1/endpoints",
                "{\"url\":\"" + receiver.url(path) + "\",\"application\":\"" + uid + "\",\"event_types\":[\""
                        + eventType + "\"]}"));
    }

    private String dailySchedule(String uid, String eventType) {
        var r = call(
                "POST",
                "/v1/schedules",
                "{\"target\":{\"event_type\":\"" + eventType + "\",\"application\":\"" + uid + "\"},"
                        + "\"cron\":\"0 9 * * *\",\"timezone\":\"Europe/Paris\",\"payload\":{\"report\":\"daily\"}}");
        assertThat(r.status()).as(r.raw()).isEqualTo(201);
        assertThat(r.json().get("endpoint").isNull()).isTrue();
        assertThat(r.json().get("target").get("event_type").asText()).isEqualTo(eventType);
        assertThat(r.json().get("target").get("application").asText()).startsWith("app_");
        return r.json().get("id").asText();
    }

    private Schedule stored(String scheduleId) {
        return node.store
                .inReadTransaction(tx -> tx.schedules().find(tenant(), scheduleId))
                .orElseThrow();
    }

    /** The materialiser's step over {@code s} as read, at its next occurrence's time. */
    private List<Delivery> fire(Schedule s) {
        Instant at = s.nextFireAt();
        return node.store.inTransaction(tx -> Materialisation.materialise(tx, List.of(s), at.plusSeconds(60), ids, at));
    }

    private Set<String> endpointsOf(String messageId) {
        JsonNode m = call("GET", "/v1/messages/" + messageId, null).json();
        Set<String> out = new java.util.HashSet<>();
        m.get("endpoint_deliveries").forEach(d -> out.add(d.get("endpoint_id").asText()));
        assertThat(m.get("deliveries").asInt()).isEqualTo(out.size());
        return out;
    }

    private List<JsonNode> messagesOf(String scheduleId, String eventType) {
        List<JsonNode> out = new ArrayList<>();
        call("GET", "/v1/messages?limit=100&event_type=" + eventType, null)
                .json()
                .get("data")
                .forEach(m -> {
                    if (m.get("schedule_id").asText().equals(scheduleId)) out.add(m);
                });
        return out;
    }

    @Test
    void anEndpointAddedBetweenTwoOccurrencesGetsOnlyTheSecond() {
        String[] ae = applicationAndEventType();
        String first = endpoint(ae[0], ae[1], "/f/" + UUID.randomUUID());
        String scheduleId = dailySchedule(ae[0], ae[1]);
        Schedule s = stored(scheduleId);
        Instant t1 = s.nextFireAt();
        assertThat(fire(s)).hasSize(1);

        String second = endpoint(ae[0], ae[1], "/f/" + UUID.randomUUID());
        Schedule after = stored(scheduleId);
        Instant t2 = after.nextFireAt();
        assertThat(t2).isEqualTo(t1.plus(Duration.ofDays(1)));
        assertThat(fire(after)).hasSize(2);

        String m1 = ScheduledFanOut.messageId(scheduleId, t1);
        String m2 = ScheduledFanOut.messageId(scheduleId, t2);
        assertThat(endpointsOf(m1)).containsExactly(first);
        assertThat(endpointsOf(m2)).containsExactlyInAnyOrder(first, second);
        JsonNode got = call("GET", "/v1/messages/" + m2, null).json();
        assertThat(got.get("schedule_id").asText()).isEqualTo(scheduleId);
        assertThat(Instant.parse(got.get("scheduled_for").asText())).isEqualTo(t2);
        assertThat(got.get("payload").toString()).isEqualTo("{\"report\":\"daily\"}");
        assertThat(messagesOf(scheduleId, ae[1])).hasSize(2);
    }

    @Test
    void anOccurrenceIsOneMessageWhenItsCursorIsMovedBackAndItIsMaterialisedAgain() {
        String[] ae = applicationAndEventType();
        endpoint(ae[0], ae[1], "/r/" + UUID.randomUUID());
        endpoint(ae[0], ae[1], "/r/" + UUID.randomUUID());
        String scheduleId = dailySchedule(ae[0], ae[1]);
        Schedule s = stored(scheduleId);
        Instant t1 = s.nextFireAt();
        assertThat(fire(s)).hasSize(2);
        // as a retried or replayed pass would find it: the cursor back on the occurrence already fanned out
        Schedule moved = stored(scheduleId);
        node.store.useTransaction(tx -> tx.schedules()
                .advanceCursors(
                        List.of(new CursorMove(scheduleId, moved.nextFireAt(), t1, s.lastSequence())), Instant.now()));
        Schedule back = stored(scheduleId);
        assertThat(back.nextFireAt()).isEqualTo(t1);

        assertThat(fire(back)).isEmpty();
        assertThat(messagesOf(scheduleId, ae[1])).hasSize(1);
        assertThat(endpointsOf(ScheduledFanOut.messageId(scheduleId, t1))).hasSize(2);
    }

    @Test
    void twoEnginesMaterialisingOneOccurrenceAtOnceMakeOneMessage() throws Exception {
        String[] ae = applicationAndEventType();
        for (int i = 0; i < 3; i++) endpoint(ae[0], ae[1], "/t/" + UUID.randomUUID());
        String scheduleId = dailySchedule(ae[0], ae[1]);
        Schedule s = stored(scheduleId); // both read it before either writes, as two nodes would
        CyclicBarrier together = new CyclicBarrier(2);
        ExecutorService pool = Executors.newFixedThreadPool(2);
        try {
            List<Future<List<Delivery>>> runs = new ArrayList<>();
            for (int i = 0; i < 2; i++)
                runs.add(pool.submit(() -> {
                    together.await();
                    return fire(s);
                }));
            int written = 0;
            for (var r : runs) written += r.get().size();
            assertThat(written).isEqualTo(3);
        } finally {
            pool.shutdownNow();
        }
        assertThat(messagesOf(scheduleId, ae[1])).hasSize(1);
        assertThat(endpointsOf(ScheduledFanOut.messageId(scheduleId, s.nextFireAt())))
                .hasSize(3);
    }

    @Test
    void aDueOneShotFanOutIsSentByTheEngineToEachSubscriberAndTheScheduleCompletes() {
        String[] ae = applicationAndEventType();
        String path = "/o/" + UUID.randomUUID();
        String endpointId = endpoint(ae[0], ae[1], path);
        var r = call(
                "POST",
                "/v1/schedules",
                "{\"target\":{\"event_type\":\"" + ae[1] + "\",\"application\":\"" + ae[0] + "\"},"
                        + "\"delay\":\"0s\",\"payload\":{\"n\":1}}");
        String scheduleId = id(r);
        await().atMost(Duration.ofSeconds(30))
                .until(() -> receiver.requests.stream().anyMatch(q -> q.path().equals(path)));
        LoopbackReceiver.Received got = receiver.requests.stream()
                .filter(q -> q.path().equals(path))
                .findFirst()
                .orElseThrow();
        List<JsonNode> messages = messagesOf(scheduleId, ae[1]);
        assertThat(messages).hasSize(1);
        String messageId = messages.get(0).get("id").asText();
        assertThat(got.header("webhook-id")).isEqualTo(messageId);
        assertThat(got.header("idem-endpoint-id")).isEqualTo(endpointId);
        assertThat(got.header("idem-event-type")).isEqualTo(ae[1]);
        assertThat(new String(got.body(), StandardCharsets.UTF_8)).isEqualTo("{\"n\":1}");
        await().atMost(Duration.ofSeconds(30))
                .until(() -> call("GET", "/v1/schedules/" + scheduleId, null)
                        .json()
                        .get("status")
                        .asText()
                        .equals("completed"));
    }

    @Test
    void aTargetWithAUrlOrAFieldOfOneRequestIsRefusedAndWritesNothing() {
        String[] ae = applicationAndEventType();
        StoreRows rows = new StoreRows(db.config());
        long schedules = rows.count("schedules");
        String target = "\"target\":{\"event_type\":\"" + ae[1] + "\"}";
        String url = "\"" + receiver.url("/x") + "\"";
        assertRefused(
                call("POST", "/v1/schedules", "{" + target + ",\"endpoint\":" + url + "}"),
                "parameter_conflict",
                "endpoint",
                "target and endpoint");
        assertRefused(
                call("POST", "/v1/schedules", "{" + target + ",\"headers\":{\"X-A\":\"1\"}}"),
                "parameter_conflict",
                "headers",
                "target and headers");
        assertRefused(
                call("POST", "/v1/schedules", "{\"target\":{\"event_type\":\"a b\"}}"),
                "parameter_invalid",
                "target.event_type",
                "a bad event type");
        assertRefused(
                call("POST", "/v1/schedules", "{\"target\":{\"event_type\":\"a.b\",\"application\":\"nobody\"}}"),
                "application_unknown",
                "target.application",
                "an unknown application");
        assertRefused(
                call("POST", "/v1/schedules", "{\"target\":{\"event_type\":\"a.b\",\"colour\":1}}"),
                "parameter_unknown",
                "target.colour",
                "an unknown field in target");
        assertThat(rows.count("schedules")).isEqualTo(schedules);

        String plain = id(call("POST", "/v1/schedules", "{\"endpoint\":" + url + ",\"cron\":\"0 9 * * *\"}"));
        assertRefused(
                call("PATCH", "/v1/schedules/" + plain, "{" + target + "}"),
                "parameter_conflict",
                "endpoint",
                "a URL schedule patched with a target");
        String fanOut = dailySchedule(ae[0], ae[1]);
        assertRefused(
                call("PATCH", "/v1/schedules/" + fanOut, "{\"endpoint\":" + url + "}"),
                "parameter_conflict",
                "endpoint",
                "a fan-out patched with an endpoint");
        assertRefused(
                call("PATCH", "/v1/schedules/" + fanOut, "{\"retry\":{\"max_attempts\":3}}"),
                "parameter_conflict",
                "retry",
                "a fan-out patched with a retry policy");
        var moved = call("PATCH", "/v1/schedules/" + fanOut, "{\"cron\":\"0 10 * * *\"}");
        assertThat(moved.status()).as(moved.raw()).isEqualTo(200);
        assertThat(moved.json().get("target").get("event_type").asText()).isEqualTo(ae[1]);
        assertThat(moved.json().get("cron").asText()).isEqualTo("0 10 * * *");
    }
}
