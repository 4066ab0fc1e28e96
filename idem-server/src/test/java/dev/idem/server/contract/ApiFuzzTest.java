package dev.idem.server.contract;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.idem.core.recurrence.Preview;
import dev.idem.core.recurrence.Recurrences;
import dev.idem.server.ApiClientForTests;
import dev.idem.server.LoopbackReceiver;
import dev.idem.server.internal.ApiException;
import dev.idem.server.internal.Json;
import dev.idem.server.internal.PreviewService;
import dev.idem.store.testing.TestStores;
import java.io.IOException;
import java.net.URI;
import java.net.URISyntaxException;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.UUID;
import java.util.stream.Stream;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Assume;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.Tuple;
import net.jqwik.api.constraints.Size;
import net.jqwik.api.lifecycle.AfterContainer;
import net.jqwik.api.lifecycle.BeforeContainer;
import net.jqwik.api.statistics.Statistics;

/**
 * Fuzzing the API (docs/api.md, "Validation": no input can cause a 5xx or a partial write): random, structured
 * and mutated bodies for {@code POST /v1/schedules} and {@code PATCH /v1/schedules/{id}}, arbitrary
 * bytes, and random query strings for the lists and the preview. Every answer is below 500, matches
 * openapi.json, and a 400 leaves no row (counted in the SQLite file) and no change.
 *
 * <p>Safety: bodies are checked before they are sent: one that the server could accept with an
 * endpoint anywhere but 127.0.0.1 is not sent (a fuzzer must not make the node deliver off this
 * machine); accepted schedules are deleted at once.
 */
class ApiFuzzTest {
    static final String KEY = ContractServer.TEST_KEY;
    static Path dir;
    static ContractServer node;
    static LoopbackReceiver receiver;
    static StoreRows rows;
    static OpenApiDocument doc;
    static String closedPortUrl;
    static final HttpClient HTTP =
            HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    @BeforeContainer
    static void start() throws IOException {
        dir = Files.createTempDirectory("idem-fuzz");
        receiver = new LoopbackReceiver();
        try (var s = new java.net.ServerSocket(0)) {
            closedPortUrl = "http://127.0.0.1:" + s.getLocalPort() + "/closed";
        }
        node = ContractServer.start(TestStores.sqlite(dir, Clock.systemUTC()), dir, true, true, 0);
        rows = new StoreRows(dir);
        doc = OpenApiDocument.load();
    }

    @AfterContainer
    static void stop() throws IOException {
        if (node != null) node.close();
        if (receiver != null) receiver.close();
        if (dir != null)
            try (Stream<Path> files = Files.walk(dir)) {
                files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
            }
    }

    // ---- generators

    static Arbitrary<String> safeEndpoint() {
        return Arbitraries.frequencyOf(
                        Tuple.of(
                                6,
                                Arbitraries.strings()
                                        .withCharRange('a', 'z')
                                        .ofMaxLength(8)
                                        .map(p -> receiver.url("/fuzz/" + p))),
                        Tuple.of(1, Arbitraries.just(closedPortUrl)),
                        Tuple.of(
                                1,
                                Arbitraries.strings()
                                        .withCharRange('a', 'z')
                                        .ofMaxLength(8)
                                        .map(p -> receiver.url("/q?x=" + p + "#f"))))
                .map(FuzzInputs::quote);
    }

    /** Valid create bodies: the seeds of the mutations. */
    static Arbitrary<String> validCreates() {
        return safeEndpoint()
                .flatMap(
                        e -> Arbitraries.of(
                                "{\"endpoint\":" + e + "}",
                                "{\"endpoint\":" + e + ",\"delay\":\"90s\",\"payload\":{\"a\":[1,2,{\"b\":null}]}}",
                                "{\"endpoint\":" + e
                                        + ",\"fire_at\":\"2035-01-01T00:00:00Z\",\"body\":\"hi\",\"content_type\":\"text/plain\"}",
                                "{\"endpoint\":" + e
                                        + ",\"rrule\":\"FREQ=MONTHLY;BYDAY=+2MO;BYHOUR=18;BYMINUTE=0\",\"timezone\":\"Europe/Paris\","
                                        + "\"dtstart\":\"2035-01-01T09:00:00\",\"exdates\":[\"2035-02-12T18:00:00\"],\"count\":5,\"catch_up\":\"all\"}",
                                "{\"endpoint\":" + e
                                        + ",\"cron\":\"0 9 * * MON-FRI\",\"timezone\":\"America/New_York\",\"until\":\"2040-01-01T00:00:00Z\"}",
                                "{\"endpoint\":" + e
                                        + ",\"fire_at\":\"2035-01-01T00:00:00Z\",\"headers\":{\"X-A\":\"1\"},\"event_type\":\"a.b\","
                                        + "\"idempotency_key\":\"k1\",\"dedup_id\":\"d1\",\"retry\":{\"max_attempts\":3,\"initial_backoff\":\"2s\"},"
                                        + "\"timeout\":\"10s\",\"auto_pause_after\":0,\"header_profile\":\"schedstack\",\"metadata\":{\"m\":1}}"));
    }

    @Provide
    Arbitrary<String> createBodies() {
        return Arbitraries.frequencyOf(
                Tuple.of(3, FuzzInputs.structured(FuzzInputs.CREATE_FIELDS, safeEndpoint(), 20)),
                Tuple.of(4, FuzzInputs.focused(FuzzInputs.CREATE_FIELDS, safeEndpoint())),
                Tuple.of(3, FuzzInputs.mutated(validCreates())),
                Tuple.of(1, FuzzInputs.raw()));
    }

    static final List<String> PATCH_FIELDS = FuzzInputs.CREATE_FIELDS;

    @Provide
    Arbitrary<String> patchBodies() {
        Arbitrary<String> seeds = safeEndpoint()
                .flatMap(e -> Arbitraries.of(
                        "{\"timeout\":\"5s\"}",
                        "{\"endpoint\":" + e + "}",
                        "{\"fire_at\":\"2036-01-01T00:00:00Z\",\"headers\":{\"X-B\":\"2\"}}",
                        "{\"rrule\":\"FREQ=DAILY;COUNT=3\",\"timezone\":\"Asia/Tokyo\"}",
                        "{\"cron\":\"0 0 1 1 *\"}",
                        "{\"retry\":{\"max_age\":\"1h\"},\"metadata\":null,\"payload\":[1]}"));
        return Arbitraries.frequencyOf(
                Tuple.of(3, FuzzInputs.structured(PATCH_FIELDS, safeEndpoint(), 12)),
                Tuple.of(
                        3,
                        FuzzInputs.focused(PATCH_FIELDS, safeEndpoint())
                                .map(b -> b.replaceFirst("^\\{\"endpoint\":\"[^\"]*\",", "{"))),
                Tuple.of(3, FuzzInputs.mutated(seeds)),
                Tuple.of(1, FuzzInputs.raw()));
    }

    /** Schedules a PATCH is tried on; none of them fires during the test. */
    @Provide
    Arbitrary<String> baseSchedules() {
        return Arbitraries.of(
                "{\"endpoint\":\"" + receiver.url("/base")
                        + "\",\"fire_at\":\"2035-01-01T00:00:00Z\",\"payload\":{\"p\":1},\"dedup_id\":\"base-%DEDUP%\"}",
                "{\"endpoint\":\"" + receiver.url("/base")
                        + "\",\"rrule\":\"FREQ=DAILY\",\"dtstart\":\"2035-01-01T09:00:00\",\"timezone\":\"Europe/Paris\"}",
                "{\"endpoint\":\"" + receiver.url("/base")
                        + "\",\"cron\":\"0 0 1 1 *\",\"body\":\"x\",\"content_type\":\"text/plain\",\"headers\":{\"X-C\":\"3\"}}");
    }

    // ---- the checks

    /** Whether the server could accept this body with an endpoint off 127.0.0.1 (then it is not sent). */
    static boolean mayDeliverOffThisMachine(String body) {
        ObjectNode o;
        try {
            o = Json.parseObject(body.getBytes(StandardCharsets.UTF_8));
        } catch (ApiException refused) {
            return false;
        }
        JsonNode e = o.get("endpoint");
        if (e == null || !e.isTextual()) return false;
        URI uri;
        try {
            uri = new URI(e.asText());
        } catch (URISyntaxException invalid) {
            return false;
        }
        String scheme = uri.getScheme() == null ? "" : uri.getScheme().toLowerCase(Locale.ROOT);
        if (!scheme.equals("http") && !scheme.equals("https")) return false;
        return uri.getHost() != null
                && !uri.getHost().isEmpty()
                && !uri.getHost().equals("127.0.0.1");
    }

    /** Below 500, in the error shape when an error, and as openapi.json says for the operation. */
    static void assertWellFormed(String method, String template, ApiClientForTests.Reply r, String sent) {
        assertThat(r.status())
                .as("%s %s with %s -> %s", method, template, sent, r.raw())
                .isLessThan(500);
        List<String> problems = doc.check(new OpenApiDocument.Operation(method, template), r);
        assertThat(problems).as("sent %s", sent).isEmpty();
        if (r.status() >= 400) {
            assertThat(r.json().at("/error/request_id").asText()).isEqualTo(r.header("Request-Id"));
            assertThat(r.json().at("/error/message").asText()).isNotBlank();
        }
    }

    /** openapi.json is not stricter than the server: a body the server accepted is valid against the documented request schema. */
    static void assertAcceptedBodyIsDocumented(String schemaPointer, String body) {
        JsonNode sent = Json.parseObject(body.getBytes(StandardCharsets.UTF_8));
        assertThat(doc.validate(schemaPointer, sent))
                .as("the server accepted %s, which %s refuses", body, schemaPointer)
                .isEmpty();
    }

    @Property(tries = 400)
    void anyCreateBodyIsAnsweredBelow500AndA400WritesNothing(
            @ForAll("createBodies") String body, @ForAll boolean withKey) {
        Assume.that(!mayDeliverOffThisMachine(body));
        var before = rows.counts();
        Map<String, String> headers = withKey ? Map.of("Idempotency-Key", "fuzz-" + UUID.randomUUID()) : Map.of();
        var r = node.api.call("POST", "/v1/schedules", KEY, body, headers);
        assertWellFormed("post", "/v1/schedules", r, body);
        assertThat(r.status()).as(r.raw()).isIn(200, 201, 400);
        Statistics.label("status").collect(r.status());
        Statistics.label("code")
                .collect(r.status() == 400 ? r.json().at("/error/code").asText() : "-");
        var after = rows.counts();
        if (r.status() == 400) {
            assertThat(after.schedules())
                    .as("a 400 created a schedule: %s", body)
                    .isEqualTo(before.schedules());
            assertThat(after.idempotencyRecords())
                    .as("a 400 left an idempotency record: %s", body)
                    .isEqualTo(before.idempotencyRecords());
            return;
        }
        String id = r.json().get("id").asText();
        assertAcceptedBodyIsDocumented("/components/schemas/ScheduleCreate", body);
        if (r.status() == 200) {
            assertThat(r.header("Idem-Deduplicated")).isEqualTo("true");
            assertThat(after.schedules()).isEqualTo(before.schedules());
        } else {
            assertThat(after.schedules()).isEqualTo(before.schedules() + 1);
        }
        var deleted = node.api.call("DELETE", "/v1/schedules/" + id, KEY, null);
        assertThat(deleted.status()).isEqualTo(200);
    }

    @Property(tries = 120)
    void anyBytesAsACreateBodyAreAnsweredBelow500AndWriteNothing(@ForAll @Size(max = 300) byte[] bytes)
            throws Exception {
        String asText = new String(bytes, StandardCharsets.UTF_8);
        Assume.that(!mayDeliverOffThisMachine(asText));
        var before = rows.counts();
        HttpResponse<String> r = HTTP.send(
                HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + node.server.port() + "/v1/schedules"))
                        .header("Authorization", "Bearer " + KEY)
                        .header("Content-Type", "application/json")
                        .POST(HttpRequest.BodyPublishers.ofByteArray(bytes))
                        .build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(r.statusCode()).as(r.body()).isLessThan(500);
        if (r.statusCode() == 400) assertThat(rows.counts().schedules()).isEqualTo(before.schedules());
        else if (r.statusCode() / 100 == 2)
            node.api.call(
                    "DELETE",
                    "/v1/schedules/"
                            + ApiClientForTests.JSON
                                    .readTree(r.body())
                                    .get("id")
                                    .asText(),
                    KEY,
                    null);
    }

    @Property(tries = 200)
    void anyPatchBodyIsAnsweredBelow500AndA400ChangesNothing(
            @ForAll("patchBodies") String patch, @ForAll("baseSchedules") String base, @ForAll boolean withKey) {
        Assume.that(!mayDeliverOffThisMachine(patch));
        var created = node.api.call(
                "POST",
                "/v1/schedules",
                KEY,
                base.replace("%DEDUP%", UUID.randomUUID().toString()));
        assertThat(created.status()).as(created.raw()).isEqualTo(201);
        String id = created.json().get("id").asText();
        var before = rows.counts();
        Map<String, String> headers = withKey ? Map.of("Idempotency-Key", "fuzz-" + UUID.randomUUID()) : Map.of();
        var r = node.api.call("PATCH", "/v1/schedules/" + id, KEY, patch, headers);
        assertWellFormed("patch", "/v1/schedules/{id}", r, patch);
        assertThat(r.status()).as(r.raw()).isIn(200, 400);
        Statistics.collect(r.status());
        var after = rows.counts();
        assertThat(after.schedules()).isEqualTo(before.schedules());
        if (r.status() == 400) {
            assertThat(after.idempotencyRecords()).isEqualTo(before.idempotencyRecords());
            var now = node.api.call("GET", "/v1/schedules/" + id, KEY, null);
            assertThat(now.raw())
                    .as("a 400 PATCH changed the schedule: %s", patch)
                    .isEqualTo(created.raw());
        } else {
            assertThat(r.json().get("id").asText()).isEqualTo(id);
            assertAcceptedBodyIsDocumented("/components/schemas/SchedulePatch", patch);
            // what the PATCH answered is what was stored, unless the patch made it due (then the engine moves it on)
            JsonNode next = r.json().get("next_fire_at");
            if (next.isTextual()
                    && java.time.Instant.parse(next.asText())
                            .isAfter(java.time.Instant.now().plusSeconds(120))) {
                var stored = node.api.call("GET", "/v1/schedules/" + id, KEY, null);
                assertThat(stored.raw())
                        .as("PATCH %s answered other than it stored", patch)
                        .isEqualTo(r.raw());
            }
        }
        assertThat(node.api.call("DELETE", "/v1/schedules/" + id, KEY, null).status())
                .isEqualTo(200);
    }

    static String pagingKey;
    static List<String> pagingIds;

    /** A project of its own with 23 schedules (newest first), for the pagination property. */
    static synchronized void pagingProject() {
        if (pagingKey != null) return;
        pagingKey = node.addProject("paging")[0];
        List<String> ids = new ArrayList<>();
        for (int i = 0; i < 23; i++) {
            var r = node.api.call(
                    "POST",
                    "/v1/schedules",
                    pagingKey,
                    "{\"endpoint\":\"http://127.0.0.1:9/p" + i + "\",\"fire_at\":\"2035-01-01T00:00:00Z\"}");
            assertThat(r.status()).isEqualTo(201);
            ids.add(0, r.json().get("id").asText());
        }
        pagingIds = ids;
    }

    @Property(tries = 40)
    void pagingWithAnyLimitsSeesEveryScheduleOnceNewestFirst(
            @ForAll @Size(min = 1, max = 30)
                    List<@net.jqwik.api.constraints.IntRange(min = 1, max = 100) Integer> limits,
            @ForAll boolean filtered) {
        pagingProject();
        List<String> seen = new ArrayList<>();
        String cursor = null;
        int page = 0;
        while (true) {
            int limit = limits.get(page++ % limits.size());
            var r = node.api.call(
                    "GET",
                    "/v1/schedules?limit=" + limit + (filtered ? "&status=active" : "")
                            + (cursor == null ? "" : "&starting_after=" + cursor),
                    pagingKey,
                    null);
            assertThat(r.status()).as(r.raw()).isEqualTo(200);
            JsonNode data = r.json().get("data");
            assertThat(data.size()).isLessThanOrEqualTo(limit);
            data.forEach(s -> seen.add(s.get("id").asText()));
            boolean more = r.json().get("has_more").asBoolean();
            if (!more) break;
            assertThat(data.size()).as("a page that has_more is full").isEqualTo(limit);
            cursor = seen.get(seen.size() - 1);
        }
        assertThat(seen).isEqualTo(pagingIds);
    }

    @Provide
    Arbitrary<String> scheduleQueries() {
        return FuzzInputs.listQuery(List.of("status", "limit", "starting_after"));
    }

    @Provide
    Arbitrary<String> deliveryQueries() {
        return FuzzInputs.listQuery(List.of("status", "limit", "starting_after", "schedule_id"));
    }

    @Property(tries = 150)
    void anyScheduleListQueryIsAnsweredBelow500(@ForAll("scheduleQueries") String query) {
        var r = node.api.call("GET", "/v1/schedules?" + query, KEY, null);
        assertWellFormed("get", "/v1/schedules", r, query);
        assertThat(r.status()).as(r.raw()).isIn(200, 400, 404);
        Statistics.collect(r.status());
    }

    @Property(tries = 150)
    void anyDeliveryListQueryIsAnsweredBelow500(@ForAll("deliveryQueries") String query) {
        var r = node.api.call("GET", "/v1/deliveries?" + query, KEY, null);
        assertWellFormed("get", "/v1/deliveries", r, query);
        assertThat(r.status()).as(r.raw()).isIn(200, 400, 404);
        Statistics.collect(r.status());
    }

    @Provide
    Arbitrary<String> previewQueries() {
        Arbitrary<String> rule = Arbitraries.oneOf(
                FuzzInputs.rrules().map(s -> "rrule=" + FuzzInputs.enc(s)),
                FuzzInputs.sensibleRrules().map(s -> "rrule=" + FuzzInputs.enc(s)),
                FuzzInputs.sensibleRrules().map(s -> "rrule=" + FuzzInputs.enc(s)),
                FuzzInputs.crons().map(s -> "cron=" + FuzzInputs.enc(s)));
        Arbitrary<String> extra = Arbitraries.of(
                "",
                "&count=1",
                "&count=1000",
                "&count=1001",
                "&count=0",
                "&count=x",
                "&timezone=Europe%2FParis",
                "&timezone=Pacific%2FApia",
                "&timezone=Nowhere",
                "&dtstart=2026-03-29T02%3A30%3A00",
                "&dtstart=%2B999999999-12-31T23%3A59%3A59",
                "&dtstart=0000-01-01T00%3A00%3A00",
                "&until=2030-01-01T00%3A00%3A00Z",
                "&until=2030-01-01T00%3A00%3A00",
                "&until=bad",
                "&exdates=2030-01-01T00%3A00%3A00%2Cx",
                "&exdates=%2C%2C",
                "&rrule=FREQ%3DDAILY",
                "&x=1");
        return Arbitraries.oneOf(rule, Arbitraries.just(""))
                .flatMap(r -> extra.list().ofMaxSize(3).map(l -> r + String.join("", l)));
    }

    @Property(tries = 200)
    void anyPreviewQueryIsAnsweredBelow500WithinItsSearchBudget(@ForAll("previewQueries") String query) {
        var r = node.api.call("GET", "/v1/recurrence/preview?" + query, null, null);
        assertWellFormed("get", "/v1/recurrence/preview", r, query);
        assertThat(r.status()).as(r.raw()).isIn(200, 400);
        Statistics.collect(r.status());
        if (r.status() == 200) {
            // what keeps the keyless route cheap, checked as work rather than time (a loaded machine makes any
            // wall-clock bound flaky): the same query's search examines at most the budget and one period more
            Preview found = new PreviewService(Clock.systemUTC()).search(queryParams(query));
            assertThat(found.examined()).as(query).isLessThanOrEqualTo(Recurrences.PREVIEW_BUDGET + 366);
        }
    }

    /** The parameters as the route reads them: the first value of each name, decoded. */
    static Map<String, String> queryParams(String query) {
        Map<String, String> params = new java.util.HashMap<>();
        for (String pair : query.split("&")) {
            if (pair.isEmpty()) continue;
            int eq = pair.indexOf('=');
            String name = java.net.URLDecoder.decode(eq < 0 ? pair : pair.substring(0, eq), StandardCharsets.UTF_8);
            String value = eq < 0 ? "" : java.net.URLDecoder.decode(pair.substring(eq + 1), StandardCharsets.UTF_8);
            params.putIfAbsent(name, value);
        }
        return params;
    }
}
