package dev.idem.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import dev.idem.core.store.Store;
import dev.idem.wire.SigningSecret;
import dev.idem.wire.StandardWebhooksVerifier;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** The HTTP API against a real store and a real loopback receiver; one subclass per store. */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
abstract class ServerContractTest {
    static final String TEST_KEY = "sk_test_contract0123456789";

    @TempDir
    static Path dir;

    Store store;
    IdemServer server;
    ApiClientForTests api;
    LoopbackReceiver receiver;
    String liveKey;

    abstract Store openStore(Path dir, Clock clock);

    @BeforeAll
    void start() throws Exception {
        store = openStore(dir, Clock.systemUTC());
        receiver = new LoopbackReceiver();
        ByteArrayOutputStream printed = new ByteArrayOutputStream();
        ServerConfig config = ServerConfig.builder()
                .port(0)
                .dataDir(dir)
                .bootstrapKey(TEST_KEY)
                .allowPrivateEndpoints(true)
                .nodeId("test-node")
                .build();
        server = IdemServer.start(
                config,
                store,
                false,
                Clock.systemUTC(),
                new SecureRandom(),
                new PrintStream(printed, true, StandardCharsets.UTF_8));
        Matcher m = Pattern.compile("live key: (sk_live_\\S+)").matcher(printed.toString(StandardCharsets.UTF_8));
        assertThat(m.find()).as("first start prints the live key: %s", printed).isTrue();
        liveKey = m.group(1);
        api = new ApiClientForTests(server.port());
    }

    @AfterAll
    void stop() {
        if (server != null) server.close();
        if (receiver != null) receiver.close();
        if (store != null) store.close();
    }

    ApiClientForTests.Reply create(String body) {
        return api.call("POST", "/v1/schedules", TEST_KEY, body);
    }

    String newestScheduleId() {
        JsonNode data =
                api.call("GET", "/v1/schedules?limit=1", TEST_KEY, null).json().get("data");
        return data.isEmpty() ? null : data.get(0).get("id").asText();
    }

    @Test
    void aScheduleDueNowIsDeliveredSignedWithEveryHeaderAndRecordedSucceeded() {
        var created = create("{\"endpoint\":\"" + receiver.url("/hook")
                + "\",\"payload\":{\"order\":42},\"headers\":{\"X-Team\":\"billing\"},"
                + "\"event_type\":\"invoice.reminder\",\"idempotency_key\":\"inv-42\"}");
        assertThat(created.status()).as(created.raw()).isEqualTo(201);
        String scheduleId = created.json().get("id").asText();
        assertThat(scheduleId).startsWith("sch_");
        assertThat(created.json().get("object").asText()).isEqualTo("schedule");
        assertThat(created.json().get("kind").asText()).isEqualTo("once");

        await().atMost(Duration.ofSeconds(10))
                .until(() -> receiver.requests.stream().anyMatch(r -> scheduleId.equals(r.header("Idem-Schedule-Id"))));
        LoopbackReceiver.Received got = receiver.requests.stream()
                .filter(r -> scheduleId.equals(r.header("Idem-Schedule-Id")))
                .findFirst()
                .orElseThrow();
        assertThat(new String(got.body(), StandardCharsets.UTF_8)).isEqualTo("{\"order\":42}");
        assertThat(got.header("webhook-id")).startsWith("dlv_").isEqualTo(got.header("Idem-Delivery-Id"));
        assertThat(got.header("Idempotency-Key")).isEqualTo("inv-42");
        assertThat(got.header("Idem-Attempt")).isEqualTo("1");
        assertThat(got.header("Idem-Sequence")).isEqualTo("1");
        assertThat(got.header("Idem-Event-Type")).isEqualTo("invoice.reminder");
        assertThat(got.header("X-Team")).isEqualTo("billing");
        assertThat(got.header("User-Agent")).startsWith("idem/");
        assertThat(got.header("Idem-Scheduled-For")).matches("\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\d\\.\\d{3}Z");

        String secret = api.call("GET", "/v1/signing-secret", TEST_KEY, null)
                .json()
                .get("secret")
                .asText();
        var verifier = new StandardWebhooksVerifier(
                List.of(SigningSecret.parse(secret)), StandardWebhooksVerifier.DEFAULT_TOLERANCE, Clock.systemUTC());
        assertThat(verifier.verify(
                                got.header("webhook-id"),
                                got.header("webhook-timestamp"),
                                got.header("webhook-signature"),
                                got.body())
                        .valid())
                .isTrue();

        String deliveryId = got.header("webhook-id");
        await().atMost(Duration.ofSeconds(10))
                .until(() -> api.call("GET", "/v1/deliveries/" + deliveryId, TEST_KEY, null)
                        .json()
                        .get("status")
                        .asText()
                        .equals("succeeded"));
        JsonNode delivery =
                api.call("GET", "/v1/deliveries/" + deliveryId, TEST_KEY, null).json();
        assertThat(delivery.get("attempts")).hasSize(1);
        assertThat(delivery.get("attempts").get(0).get("status_code").asInt()).isEqualTo(200);
        assertThat(delivery.get("attempts").get(0).get("response_body").asText())
                .isEqualTo("ok");
        JsonNode list = api.call("GET", "/v1/deliveries?schedule_id=" + scheduleId, TEST_KEY, null)
                .json();
        assertThat(list.get("data")).hasSize(1);
        assertThat(api.call("GET", "/v1/schedules/" + scheduleId, TEST_KEY, null)
                        .json()
                        .get("status")
                        .asText())
                .isEqualTo("completed");
    }

    @Test
    void withoutPayloadTheEnvelopeIsSent() throws Exception {
        var created = create("{\"endpoint\":\"" + receiver.url("/env") + "\"}");
        String scheduleId = created.json().get("id").asText();
        await().atMost(Duration.ofSeconds(10))
                .until(() -> receiver.requests.stream().anyMatch(r -> scheduleId.equals(r.header("Idem-Schedule-Id"))));
        var got = receiver.requests.stream()
                .filter(r -> scheduleId.equals(r.header("Idem-Schedule-Id")))
                .findFirst()
                .orElseThrow();
        JsonNode env = ApiClientForTests.JSON.readTree(got.body());
        assertThat(env.get("schedule_id").asText()).isEqualTo(scheduleId);
        assertThat(env.get("delivery_id").asText()).isEqualTo(got.header("webhook-id"));
        assertThat(env.get("attempt").asInt()).isEqualTo(1);
        assertThat(env.get("sequence").asInt()).isEqualTo(1);
        assertThat(env.get("input").get("type").asText()).isEqualTo("once");
        assertThat(got.header("Idempotency-Key")).isEqualTo(got.header("webhook-id"));
    }

    @Test
    void aDelayedScheduleIsNotDeliveredBeforeItsTime() {
        Instant before = Instant.now();
        var created = create("{\"endpoint\":\"" + receiver.url("/later")
                + "\",\"delay\":\"2s\",\"body\":\"hello\",\"content_type\":\"text/plain\"}");
        assertThat(created.status()).isEqualTo(201);
        String scheduleId = created.json().get("id").asText();
        Instant fireAt = Instant.parse(created.json().get("fire_at").asText());
        assertThat(fireAt)
                .isBetween(before.plusSeconds(2).minusMillis(5), Instant.now().plusSeconds(2));
        assertThat(created.json().get("next_fire_at").asText())
                .isEqualTo(created.json().get("fire_at").asText());
        await().atMost(Duration.ofSeconds(15))
                .until(() -> receiver.requests.stream().anyMatch(r -> scheduleId.equals(r.header("Idem-Schedule-Id"))));
        var got = receiver.requests.stream()
                .filter(r -> scheduleId.equals(r.header("Idem-Schedule-Id")))
                .findFirst()
                .orElseThrow();
        assertThat(got.at()).isAfterOrEqualTo(fireAt);
        assertThat(new String(got.body(), StandardCharsets.UTF_8)).isEqualTo("hello");
        assertThat(got.header("Content-Type")).isEqualTo("text/plain");
    }

    @Test
    void fireAtInRfc3339IsKeptAndShown() {
        var created =
                create("{\"endpoint\":\"" + receiver.url("/at") + "\",\"fire_at\":\"2035-01-01T10:00:00+02:00\"}");
        assertThat(created.status()).isEqualTo(201);
        assertThat(created.json().get("fire_at").asText()).isEqualTo("2035-01-01T08:00:00.000Z");
        assertThat(created.json().get("status").asText()).isEqualTo("active");
    }

    JsonNode get(String path) {
        return api.call("GET", path, TEST_KEY, null).json();
    }

    List<String> listedIds(String status) {
        return get("/v1/schedules?limit=100&status=" + status).get("data").findValuesAsText("id");
    }

    @Test
    void aOneShotDueLaterHasItsDeliveryWrittenAtCreateAndReadsActiveUntilDelivered() {
        var created = create("{\"endpoint\":\"" + receiver.url("/ahead") + "\",\"fire_at\":\"2035-01-01T00:00:00Z\"}");
        String id = created.json().get("id").asText();
        assertThat(created.json().get("status").asText()).isEqualTo("active");
        assertThat(created.json().get("last_delivery_status").isNull()).isTrue();
        assertThat(created.json()).as("the create answer is what GET shows").isEqualTo(get("/v1/schedules/" + id));
        JsonNode rows = get("/v1/deliveries?schedule_id=" + id).get("data");
        assertThat(rows).hasSize(1);
        assertThat(rows.get(0).get("status").asText()).isEqualTo("scheduled");
        assertThat(rows.get(0).get("scheduled_for").asText()).isEqualTo("2035-01-01T00:00:00.000Z");
        assertThat(listedIds("active")).contains(id);
        assertThat(listedIds("completed")).doesNotContain(id);

        var soon = create("{\"endpoint\":\"" + receiver.url("/soon") + "\",\"delay\":\"1s\"}");
        String soonId = soon.json().get("id").asText();
        assertThat(soon.json().get("status").asText())
                .as("a one-shot due in a second is not completed")
                .isEqualTo("active");
        await().atMost(Duration.ofSeconds(15))
                .until(() ->
                        get("/v1/schedules/" + soonId).get("status").asText().equals("completed"));
        assertThat(get("/v1/schedules/" + soonId).get("last_delivery_status").asText())
                .isEqualTo("succeeded");
        assertThat(listedIds("completed")).contains(soonId);
        assertThat(listedIds("active")).doesNotContain(soonId);
    }

    @Test
    void aDeadOneShotReadsCompletedWithLastDeliveryStatusDeadInListsAsInGet() {
        // nothing listens on port 1: the one attempt allowed fails, the delivery is dead
        String id = create("{\"endpoint\":\"http://127.0.0.1:1/nobody\",\"retry\":{\"max_attempts\":1}}")
                .json()
                .get("id")
                .asText();
        await().atMost(Duration.ofSeconds(15))
                .until(() -> get("/v1/schedules/" + id).get("status").asText().equals("completed"));
        JsonNode one = get("/v1/schedules/" + id);
        assertThat(one.get("last_delivery_status").asText()).isEqualTo("dead");
        JsonNode listed = null;
        for (JsonNode s : get("/v1/schedules?limit=100&status=completed").get("data"))
            if (s.get("id").asText().equals(id)) listed = s;
        assertThat(listed).isEqualTo(one);
    }

    @Test
    void aMovedFireAtMovesTheOneShotsDeliveryUntilItHasBeenAttempted() {
        String id = create("{\"endpoint\":\"" + receiver.url("/move") + "\",\"fire_at\":\"2035-01-01T00:00:00Z\"}")
                .json()
                .get("id")
                .asText();
        String deliveryId = get("/v1/deliveries?schedule_id=" + id)
                .get("data")
                .get(0)
                .get("id")
                .asText();
        var moved = api.call("PATCH", "/v1/schedules/" + id, TEST_KEY, "{\"fire_at\":\"2036-06-01T12:00:00Z\"}");
        assertThat(moved.status()).as(moved.raw()).isEqualTo(200);
        assertThat(moved.json().get("next_fire_at").asText()).isEqualTo("2036-06-01T12:00:00.000Z");
        JsonNode rows = get("/v1/deliveries?schedule_id=" + id).get("data");
        assertThat(rows).hasSize(1);
        assertThat(rows.get(0).get("id").asText())
                .as("the same delivery, moved")
                .isEqualTo(deliveryId);
        assertThat(rows.get(0).get("scheduled_for").asText()).isEqualTo("2036-06-01T12:00:00.000Z");

        assertThat(api.call("PATCH", "/v1/schedules/" + id, TEST_KEY, "{\"delay\":\"0s\"}")
                        .status())
                .isEqualTo(200);
        await().atMost(Duration.ofSeconds(15))
                .until(() -> receiver.requests.stream().anyMatch(r -> deliveryId.equals(r.header("webhook-id"))));
        await().atMost(Duration.ofSeconds(15))
                .until(() -> get("/v1/schedules/" + id).get("status").asText().equals("completed"));
        var late = api.call("PATCH", "/v1/schedules/" + id, TEST_KEY, "{\"fire_at\":\"2036-01-01T00:00:00Z\"}");
        assertThat(late.status()).isEqualTo(400);
        assertThat(late.json().get("error").get("code").asText()).isEqualTo("schedule_already_fired");
        assertThat(get("/v1/deliveries?schedule_id=" + id)
                        .get("data")
                        .get(0)
                        .get("scheduled_for")
                        .asText())
                .isNotEqualTo("2036-01-01T00:00:00.000Z");
    }

    @Test
    void aPausedOneShotsWrittenDeliveryWaitsForResumeAndADeletedOnesIsCancelled() {
        String paused = create("{\"endpoint\":\"" + receiver.url("/paused") + "\",\"delay\":\"1s\"}")
                .json()
                .get("id")
                .asText();
        assertThat(api.call("POST", "/v1/schedules/" + paused + "/pause", TEST_KEY, null)
                        .status())
                .isEqualTo(200);
        await().during(Duration.ofMillis(1500))
                .atMost(Duration.ofSeconds(3))
                .until(() -> receiver.requests.stream().noneMatch(r -> paused.equals(r.header("Idem-Schedule-Id"))));
        assertThat(api.call("POST", "/v1/schedules/" + paused + "/resume", TEST_KEY, null)
                        .json()
                        .get("status")
                        .asText())
                .isEqualTo("active");
        await().atMost(Duration.ofSeconds(15))
                .until(() ->
                        get("/v1/schedules/" + paused).get("status").asText().equals("completed"));
        assertThat(receiver.requests.stream().filter(r -> paused.equals(r.header("Idem-Schedule-Id"))))
                .hasSize(1);

        String deleted = create(
                        "{\"endpoint\":\"" + receiver.url("/deleted") + "\",\"fire_at\":\"2035-01-01T00:00:00Z\"}")
                .json()
                .get("id")
                .asText();
        assertThat(api.call("DELETE", "/v1/schedules/" + deleted, TEST_KEY, null)
                        .status())
                .isEqualTo(200);
        assertThat(get("/v1/deliveries?schedule_id=" + deleted)
                        .get("data")
                        .get(0)
                        .get("status")
                        .asText())
                .isEqualTo("cancelled");
        assertThat(get("/v1/schedules/" + deleted).get("status").asText()).isEqualTo("deleted");
    }

    @Test
    void aBatchCreatesEachValidItemAndAnswersEveryItemAsASingleCreateWould() {
        String ok = "{\"endpoint\":\"" + receiver.url("/batch") + "\",\"fire_at\":\"2035-01-01T00:00:00Z\"";
        String body = "{\"schedules\":[" + ok + "}," + ok + ",\"timeout\":\"5m\"}," + ok
                + ",\"dedup_id\":\"batch-dedup\"}," + "{\"endpoint\":\"" + receiver.url("/batch")
                + "\",\"cron\":\"0 9 * * *\"}, 42," + ok + ",\"dedup_id\":\"batch-dedup\",\"event_type\":\"x\"}]}";
        var r = api.call("POST", "/v1/schedules/batch", TEST_KEY, body, java.util.Map.of("Idempotency-Key", "batch-1"));
        assertThat(r.status()).as(r.raw()).isEqualTo(200);
        JsonNode data = r.json().get("data");
        assertThat(data).extracting(i -> i.get("status_code").asInt()).containsExactly(201, 400, 201, 201, 400, 200);
        assertThat(data).extracting(i -> i.get("index").asInt()).containsExactly(0, 1, 2, 3, 4, 5);
        assertThat(r.json().get("created").asInt()).isEqualTo(3);
        assertThat(r.json().get("failed").asInt()).isEqualTo(2);
        // the error each item would have had alone
        var alone = create(ok + ",\"timeout\":\"5m\"}").json().get("error");
        assertThat(data.get(1).get("error").get("code").asText())
                .isEqualTo(alone.get("code").asText());
        assertThat(data.get(1).get("error").get("message").asText())
                .isEqualTo(alone.get("message").asText());
        assertThat(data.get(1).get("error").get("param").asText()).isEqualTo("timeout");
        assertThat(data.get(4).get("error").get("code").asText()).isEqualTo("invalid_json");
        // dedup within one batch finds the first item's schedule
        assertThat(data.get(5).get("deduplicated").asBoolean()).isTrue();
        assertThat(data.get(5).get("schedule").get("id"))
                .isEqualTo(data.get(2).get("schedule").get("id"));
        for (int i : new int[] {0, 2, 3}) {
            JsonNode s = data.get(i).get("schedule");
            assertThat(s).isEqualTo(get("/v1/schedules/" + s.get("id").asText()));
        }
        assertThat(get("/v1/deliveries?schedule_id="
                                + data.get(0).get("schedule").get("id").asText())
                        .get("data"))
                .hasSize(1);
        // the Idempotency-Key covers the whole call: replayed, nothing created twice
        var again =
                api.call("POST", "/v1/schedules/batch", TEST_KEY, body, java.util.Map.of("Idempotency-Key", "batch-1"));
        assertThat(again.raw()).isEqualTo(r.raw());
        assertThat(again.header("Idempotent-Replayed")).isEqualTo("true");
    }

    @Test
    void aBatchThatIsNotAListOfAtMostAThousandBodiesIsRefusedWhole() {
        String one = "{\"endpoint\":\"" + receiver.url("/b") + "\"}";
        String tooMany = "{\"schedules\":[" + String.join(",", java.util.Collections.nCopies(1001, one)) + "]}";
        String before = newestScheduleId();
        for (String bad : List.of(
                tooMany,
                "{\"schedules\":[]}",
                "{\"schedules\":{}}",
                "{}",
                "{\"schedules\":[" + one + "],\"x\":1}",
                "[" + one + "]")) {
            var r = api.call("POST", "/v1/schedules/batch", TEST_KEY, bad);
            assertThat(r.status()).as(bad.length() > 200 ? "1001 items" : bad).isEqualTo(400);
        }
        assertThat(newestScheduleId()).isEqualTo(before);
    }

    @Test
    void missingOrUnknownKeysGet401InTheErrorShapeWithTheRequestId() {
        var none = api.call("GET", "/v1/schedules", null, null);
        assertThat(none.status()).isEqualTo(401);
        assertThat(none.json().get("error").get("type").asText()).isEqualTo("authentication_error");
        assertThat(none.json().get("error").get("request_id").asText())
                .startsWith("req_")
                .isEqualTo(none.header("Request-Id"));
        var unknown = api.call("GET", "/v1/schedules", "sk_test_doesnotexist123", null);
        assertThat(unknown.status()).isEqualTo(401);
        assertThat(unknown.json().get("error").get("code").asText()).isEqualTo("invalid_api_key");
    }

    @Test
    void objectsOfTestModeAreInvisibleFromLiveModeAnd404() {
        String id = create("{\"endpoint\":\"" + receiver.url("/iso") + "\",\"fire_at\":\"2035-01-01T00:00:00Z\"}")
                .json()
                .get("id")
                .asText();
        var fromLive = api.call("GET", "/v1/schedules/" + id, liveKey, null);
        assertThat(fromLive.status()).isEqualTo(404);
        assertThat(fromLive.json().get("error").get("type").asText()).isEqualTo("not_found_error");
        assertThat(api.call("POST", "/v1/schedules/" + id + "/pause", liveKey, null)
                        .status())
                .isEqualTo(404);
        assertThat(api.call("DELETE", "/v1/schedules/" + id, liveKey, null).status())
                .isEqualTo(404);
        assertThat(api.call("GET", "/v1/schedules?limit=100", liveKey, null)
                        .json()
                        .get("data")
                        .findValuesAsText("id"))
                .doesNotContain(id);
        assertThat(api.call("GET", "/v1/schedules/" + id, TEST_KEY, null).status())
                .isEqualTo(200);
        assertThat(api.call("GET", "/v1/signing-secret", liveKey, null)
                        .json()
                        .get("secret")
                        .asText())
                .isNotEqualTo(api.call("GET", "/v1/signing-secret", TEST_KEY, null)
                        .json()
                        .get("secret")
                        .asText());
    }

    @Test
    void listsPageNewestFirstWithACursor() {
        List<String> ids = new ArrayList<>();
        for (int i = 0; i < 5; i++)
            ids.add(
                    0,
                    create("{\"endpoint\":\"" + receiver.url("/p") + "\",\"fire_at\":\"2035-01-01T00:00:00Z\"}")
                            .json()
                            .get("id")
                            .asText());
        List<String> seen = new ArrayList<>();
        String cursor = null;
        while (seen.size() < 5) {
            var page = api.call(
                            "GET",
                            "/v1/schedules?limit=2" + (cursor == null ? "" : "&starting_after=" + cursor),
                            TEST_KEY,
                            null)
                    .json();
            assertThat(page.get("object").asText()).isEqualTo("list");
            assertThat(page.get("has_more").asBoolean()).isTrue();
            page.get("data").forEach(s -> seen.add(s.get("id").asText()));
            // a listed schedule reads as GET shows it, next_fire_at
            // included (the list computes it for the page at once)
            page.get("data")
                    .forEach(s -> assertThat(s)
                            .isEqualTo(api.call(
                                            "GET",
                                            "/v1/schedules/" + s.get("id").asText(),
                                            TEST_KEY,
                                            null)
                                    .json()));
            cursor = seen.get(seen.size() - 1);
        }
        assertThat(seen.subList(0, 5)).isEqualTo(ids);
        assertThat(api.call("GET", "/v1/schedules?status=paused&limit=100", TEST_KEY, null)
                        .json()
                        .get("data")
                        .findValuesAsText("id"))
                .doesNotContainAnyElementsOf(ids);
    }

    @ParameterizedTest(name = "{0} -> 400 {1}")
    @CsvSource(
            delimiter = '|',
            value = {
                "{not json|invalid_json|",
                "[1,2]|invalid_json|",
                "{\"endpoint\":\"https://example.com\",\"colour\":\"red\"}|parameter_unknown|colour",
                "{}|parameter_missing|endpoint",
                "{\"endpoint\":42}|parameter_invalid_type|endpoint",
                "{\"endpoint\":\"ftp://example.com/x\"}|endpoint_invalid|endpoint",
                "{\"endpoint\":\"https://example.com\",\"delay\":\"soon\"}|parameter_invalid_duration|delay",
                "{\"endpoint\":\"https://example.com\",\"delay\":\"5s\",\"fire_at\":\"2035-01-01T00:00:00Z\"}|parameter_conflict|fire_at",
                "{\"endpoint\":\"https://example.com\",\"fire_at\":\"tomorrow\"}|parameter_invalid_time|fire_at",
                "{\"endpoint\":\"https://example.com\",\"headers\":{\"webhook-id\":\"x\"}}|header_reserved|headers.webhook-id",
                "{\"endpoint\":\"https://example.com\",\"headers\":{\"Idempotency-Key\":\"x\"}}|header_reserved|headers.Idempotency-Key",
                "{\"endpoint\":\"https://example.com\",\"timeout\":\"61s\"}|parameter_out_of_range|timeout",
                "{\"endpoint\":\"https://example.com\",\"payload\":{},\"body\":\"x\"}|parameter_conflict|body",
                "{\"endpoint\":\"https://example.com\",\"retry\":{\"max_attempts\":0}}|parameter_out_of_range|retry.max_attempts",
                "{\"endpoint\":\"https://example.com\",\"retry\":{\"tries\":3}}|parameter_unknown|retry.tries",
                "{\"endpoint\":\"https://example.com\",\"header_profile\":\"svix\"}|parameter_invalid|header_profile",
                "{\"endpoint\":\"https://example.com\",\"timezone\":\"Europe/Paris\"}|parameter_unexpected|timezone",
                "{\"endpoint\":\"https://example.com\",\"a\":1,\"a\":2}|invalid_json|",
                "{\"endpoint\":\"https://example.com\",\"flow_control\":{\"key\":\"k\",\"parallelism\":0}}|parameter_out_of_range|flow_control.parallelism",
                "{\"endpoint\":\"https://example.com\",\"flow_control\":{\"key\":\"k\",\"parallelism\":\"4\"}}|parameter_invalid_type|flow_control.parallelism",
                "{\"endpoint\":\"https://example.com\",\"flow_control\":{\"key\":\"k\",\"rate\":100001}}|parameter_out_of_range|flow_control.rate",
                "{\"endpoint\":\"https://example.com\",\"flow_control\":{\"key\":\"k\"}}|parameter_missing|flow_control.parallelism",
                "{\"endpoint\":\"https://example.com\",\"flow_control\":{\"parallelism\":2}}|parameter_missing|flow_control.key",
                "{\"endpoint\":\"https://example.com\",\"flow_control\":{\"key\":\"k\",\"rate\":1,\"burst\":3}}|parameter_unknown|flow_control.burst",
                "{\"endpoint\":\"https://example.com\",\"flow_control\":[1]}|parameter_invalid_type|flow_control",
            })
    void badInputGetsA400NamingWhatToFixAndChangesNothing(String body, String code, String param) {
        String newest = newestScheduleId();
        var reply = create(body);
        assertThat(reply.status()).as(reply.raw()).isEqualTo(400);
        JsonNode error = reply.json().get("error");
        assertThat(error.get("type").asText()).isEqualTo("invalid_request_error");
        assertThat(error.get("code").asText()).isEqualTo(code);
        assertThat(error.get("message").asText()).isNotBlank();
        if (param == null) assertThat(error.get("param").isNull()).isTrue();
        else assertThat(error.get("param").asText()).isEqualTo(param);
        assertThat(newestScheduleId()).isEqualTo(newest);
    }

    @Test
    void aBodyOver256KiBIsRefusedWith400() {
        String newest = newestScheduleId();
        var reply = create("{\"endpoint\":\"https://example.com\",\"body\":\"" + "x".repeat(300 * 1024) + "\"}");
        assertThat(reply.status()).isEqualTo(400);
        assertThat(reply.json().get("error").get("code").asText()).isEqualTo("body_too_large");
        assertThat(newestScheduleId()).isEqualTo(newest);
    }

    @Test
    void aSecondCreateWithTheSameDedupIdReturnsTheFirstSchedule() {
        String body = "{\"endpoint\":\"" + receiver.url("/d")
                + "\",\"fire_at\":\"2035-01-01T00:00:00Z\",\"dedup_id\":\"order-7\"}";
        var first = create(body);
        var second = create("{\"endpoint\":\"" + receiver.url("/other") + "\",\"dedup_id\":\"order-7\"}");
        assertThat(first.status()).isEqualTo(201);
        assertThat(second.status()).isEqualTo(200);
        assertThat(second.header("Idem-Deduplicated")).isEqualTo("true");
        assertThat(second.json().get("id").asText())
                .isEqualTo(first.json().get("id").asText());
    }

    @Test
    void pauseHoldsDeliveriesResumeReleasesThemAndDeleteCancels() {
        // due 3 s after the create, so the pause lands before it even on a busy machine; the wait ends past the due
        // time
        String id = create("{\"endpoint\":\"" + receiver.url("/pr") + "\",\"delay\":\"3s\"}")
                .json()
                .get("id")
                .asText();
        long created = System.nanoTime();
        var paused = api.call("POST", "/v1/schedules/" + id + "/pause", TEST_KEY, null);
        assertThat(paused.json().get("status").asText()).isEqualTo("paused");
        assertThat(paused.json().get("paused_reason").asText()).isEqualTo("user");
        await().atMost(Duration.ofSeconds(10))
                .until(() -> System.nanoTime() - created > Duration.ofSeconds(4).toNanos());
        assertThat(receiver.requests).noneMatch(r -> id.equals(r.header("Idem-Schedule-Id")));
        var resumed = api.call("POST", "/v1/schedules/" + id + "/resume", TEST_KEY, null);
        assertThat(resumed.json().get("consecutive_failures").asInt()).isZero();
        await().atMost(Duration.ofSeconds(10))
                .until(() -> receiver.requests.stream().anyMatch(r -> id.equals(r.header("Idem-Schedule-Id"))));

        String later = create("{\"endpoint\":\"" + receiver.url("/del") + "\",\"fire_at\":\"2035-01-01T00:00:00Z\"}")
                .json()
                .get("id")
                .asText();
        var deleted = api.call("DELETE", "/v1/schedules/" + later, TEST_KEY, null);
        assertThat(deleted.status()).isEqualTo(200);
        assertThat(deleted.json().get("status").asText()).isEqualTo("deleted");
        assertThat(deleted.json().get("next_fire_at").isNull()).isTrue();
    }

    @Test
    void unknownIdsAndRoutesGet404InTheErrorShape() {
        var missing = api.call("GET", "/v1/schedules/sch_doesnotexist", TEST_KEY, null);
        assertThat(missing.status()).isEqualTo(404);
        assertThat(missing.json().get("error").get("code").asText()).isEqualTo("resource_missing");
        var noRoute = api.call("GET", "/v1/nothing-here", TEST_KEY, null);
        assertThat(noRoute.status()).isEqualTo(404);
        assertThat(noRoute.json().get("error").get("request_id").asText()).isEqualTo(noRoute.header("Request-Id"));
    }

    @Test
    void healthReadinessAndMetricsAnswer() {
        assertThat(api.call("GET", "/healthz", null, null).status()).isEqualTo(200);
        var ready = api.call("GET", "/readyz", null, null);
        assertThat(ready.status()).isEqualTo(200);
        assertThat(api.call("GET", "/metrics", null, null).raw()).contains("jvm_");
    }

    @Test
    void metricsCarryTheJvmTheProcessAndTheHttpServerAndOneHelpForEveryOutcome() {
        api.call("GET", "/v1/schedules/sch_nothing", TEST_KEY, null);
        String text = api.call("GET", "/metrics", null, null).raw();
        assertThat(text)
                .contains(
                        "jvm_memory_used_bytes",
                        "jvm_gc_",
                        "jvm_threads_live_threads",
                        "jvm_classes_loaded_classes",
                        "system_cpu_count",
                        "process_cpu_usage",
                        "process_uptime_seconds",
                        "process_files_open_files",
                        "jetty_threads_current",
                        "jetty_connections_");
        assertThat(text.lines().filter(l -> l.startsWith("jetty_server_requests_seconds_count{")))
                .anyMatch(l -> l.contains("method=\"GET\"") && l.contains("status=\"404\""));
        String help = text.lines()
                .filter(l -> l.startsWith("# HELP idem_deliveries_total "))
                .findFirst()
                .orElseThrow();
        assertThat(help).contains("succeeded", "retrying", "dead", "stale");
    }
}
