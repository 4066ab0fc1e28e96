package dev.idem.server.contract;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import dev.idem.core.store.Store;
import dev.idem.server.ApiClientForTests;
import dev.idem.server.IdemServer;
import dev.idem.server.LoopbackReceiver;
import dev.idem.store.testing.TestStores;
import io.javalin.Javalin;
import io.javalin.router.ParsedEndpoint;
import java.lang.reflect.Field;
import java.net.ServerSocket;
import java.net.URI;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code openapi.json} against the real server: every route the server answers is documented and every
 * documented operation is served; every response of a walk through the whole API (successes and errors)
 * has a status the document lists for that operation, a body valid against its schema, and its headers.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class OpenApiContractTest {
    static final String KEY = ContractServer.TEST_KEY;

    @TempDir
    static Path dir;

    ContractServer node;
    LoopbackReceiver ok;
    LoopbackReceiver failing;
    OpenApiDocument doc;
    final List<String> problems = new ArrayList<>();
    /** operation -> statuses seen */
    final Map<OpenApiDocument.Operation, Set<Integer>> seen = new ConcurrentHashMap<>();

    @BeforeAll
    void start() throws Exception {
        doc = OpenApiDocument.load();
        ok = new LoopbackReceiver();
        failing = new LoopbackReceiver();
        failing.status.set(500);
        node = ContractServer.start(TestStores.sqlite(dir, Clock.systemUTC()), dir, true);
    }

    @AfterAll
    void stop() {
        if (node != null) node.close();
        if (ok != null) ok.close();
        if (failing != null) failing.close();
    }

    /** Calls the API, checks the reply against the document, records problems; asserts the status we meant to provoke. */
    ApiClientForTests.Reply call(
            int expected, String method, String pathAndQuery, String key, String body, Map<String, String> headers) {
        ApiClientForTests.Reply r = node.api.call(method, pathAndQuery, key, body, headers);
        String path = pathAndQuery.contains("?") ? pathAndQuery.substring(0, pathAndQuery.indexOf('?')) : pathAndQuery;
        String template =
                doc.template(path).orElseThrow(() -> new AssertionError(path + " matches no path of openapi.json"));
        var op = new OpenApiDocument.Operation(method.toLowerCase(Locale.ROOT), template);
        seen.computeIfAbsent(op, k -> new TreeSet<>()).add(r.status());
        synchronized (problems) {
            problems.addAll(doc.check(op, r));
        }
        assertThat(r.status()).as("%s %s -> %s", method, pathAndQuery, r.raw()).isEqualTo(expected);
        if (r.json() != null && r.json().has("error"))
            assertThat(r.json().at("/error/request_id").asText()).isEqualTo(r.header("Request-Id"));
        return r;
    }

    ApiClientForTests.Reply call(int expected, String method, String path, String key, String body) {
        return call(expected, method, path, key, body, Map.of());
    }

    ApiClientForTests.Reply call(int expected, String method, String path) {
        return call(expected, method, path, KEY, null, Map.of());
    }

    static String q(String s) {
        return URLEncoder.encode(s, StandardCharsets.UTF_8);
    }

    @Test
    void theServedDocumentIsTheResourceByteForByteAndOpenApi31() {
        var served = call(200, "GET", "/openapi.json", null, null);
        assertThat(served.raw().getBytes(StandardCharsets.UTF_8)).isEqualTo(doc.bytes);
        assertThat(doc.root.get("openapi").asText()).startsWith("3.1.");
        assertThat(problems).isEmpty();
    }

    /** What OpenAPI tooling relies on: resolvable refs, declared path parameters, unique operation ids, described responses. */
    @Test
    void theDocumentIsSelfConsistent() {
        List<String> refs = new ArrayList<>();
        collectRefs(doc.root, refs);
        assertThat(refs).isNotEmpty().allSatisfy(ref -> {
            assertThat(ref).startsWith("#/");
            assertThat(doc.root.at(ref.substring(1)).isMissingNode())
                    .as("dangling %s", ref)
                    .isFalse();
        });
        Set<String> operationIds = new TreeSet<>();
        for (var op : doc.operations()) {
            JsonNode o = doc.operation(op);
            assertThat(o.path("operationId").asText())
                    .as("%s has an operationId", op)
                    .isNotEmpty();
            assertThat(operationIds.add(o.get("operationId").asText()))
                    .as("operationId of %s is unique", op)
                    .isTrue();
            assertThat(o.path("summary").asText()).as("%s has a summary", op).isNotEmpty();
            Set<String> pathParams = new TreeSet<>();
            for (JsonNode p : o.path("parameters")) {
                JsonNode param =
                        p.has("$ref") ? doc.root.at(p.get("$ref").asText().substring(1)) : p;
                if (param.path("in").asText().equals("path")) {
                    assertThat(param.path("required").asBoolean())
                            .as("path parameter %s of %s is required", param.path("name"), op)
                            .isTrue();
                    pathParams.add(param.get("name").asText());
                }
            }
            Set<String> inTemplate = new TreeSet<>();
            java.util.regex.Matcher m =
                    java.util.regex.Pattern.compile("\\{([^}]+)}").matcher(op.template());
            while (m.find()) inTemplate.add(m.group(1));
            assertThat(pathParams).as("path parameters of %s", op).isEqualTo(inTemplate);
            assertThat(o.path("responses").size()).as("%s has responses", op).isPositive();
            o.path("responses").fieldNames().forEachRemaining(status -> {
                JsonNode r =
                        doc.response(op, Integer.parseInt(status)).orElseThrow().node();
                assertThat(r.path("description").asText())
                        .as("%s %s is described", op, status)
                        .isNotEmpty();
                assertThat(r.path("headers").has("Request-Id"))
                        .as("%s %s declares Request-Id", op, status)
                        .isTrue();
            });
            // the ingest route of a source is the provider's, not an API client's:
            // no Idempotency-Key (its dedup is the event id)
            // minting a portal link and opening a portal session answer a token shown once: not kept for replay
            boolean mutation = (op.method().equals("post")
                            || op.method().equals("patch")
                            || op.method().equals("delete"))
                    && !op.template().startsWith("/in/")
                    && !(op.method().equals("post") && op.template().contains("portal"));
            if (mutation) {
                assertThat(o.path("parameters").toString())
                        .as("%s takes an Idempotency-Key", op)
                        .contains("IdempotencyKey");
                assertThat(o.path("responses").has("409"))
                        .as("%s documents 409", op)
                        .isTrue();
            }
            boolean open = o.has("security") && o.get("security").isEmpty();
            if (op.template().startsWith("/v1/") && !op.template().equals("/v1/recurrence/preview")) {
                assertThat(open).as("%s needs a key", op).isFalse();
                assertThat(o.path("responses").has("401"))
                        .as("%s documents 401", op)
                        .isTrue();
                assertThat(o.path("responses").has("429"))
                        .as("%s documents 429", op)
                        .isTrue();
            } else {
                assertThat(open).as("%s needs no key", op).isTrue();
            }
        }
        doc.root
                .at("/components/schemas")
                .fieldNames()
                .forEachRemaining(name -> assertThat(
                                doc.validate("/components/schemas/" + name, ApiClientForTests.JSON.createObjectNode()))
                        .isNotNull());
    }

    private static void collectRefs(JsonNode node, List<String> out) {
        if (node.isObject()) {
            node.fields().forEachRemaining(e -> {
                if (e.getKey().equals("$ref") && e.getValue().isTextual())
                    out.add(e.getValue().asText());
                else collectRefs(e.getValue(), out);
            });
        } else if (node.isArray()) {
            node.forEach(n -> collectRefs(n, out));
        }
    }

    /** The check is not vacuous: a real response bent out of shape fails it. */
    @Test
    void theCheckRejectsResponsesThatDriftFromTheDocument() throws Exception {
        var op = new OpenApiDocument.Operation("get", "/v1/schedules/{id}");
        String id = call(
                        201,
                        "POST",
                        "/v1/schedules",
                        KEY,
                        "{\"endpoint\":\"https://example.com/x\",\"fire_at\":\"2035-01-01T00:00:00Z\"}")
                .json()
                .get("id")
                .asText();
        var real = call(200, "GET", "/v1/schedules/" + id);
        assertThat(doc.check(op, real)).isEmpty();
        String pointer = "/components/schemas/Schedule";
        var extra = real.json().deepCopy();
        ((com.fasterxml.jackson.databind.node.ObjectNode) extra).put("surprise", 1);
        assertThat(doc.validate(pointer, extra)).isNotEmpty();
        var missing = real.json().deepCopy();
        ((com.fasterxml.jackson.databind.node.ObjectNode) missing).remove("next_fire_at");
        assertThat(doc.validate(pointer, missing)).isNotEmpty();
        var wrongKind = real.json().deepCopy();
        ((com.fasterxml.jackson.databind.node.ObjectNode) wrongKind).put("kind", "cron");
        assertThat(doc.validate(pointer, wrongKind)).isNotEmpty();
        var badTime = real.json().deepCopy();
        ((com.fasterxml.jackson.databind.node.ObjectNode) badTime).put("created_at", "yesterday");
        assertThat(doc.validate(pointer, badTime)).isNotEmpty();
        var error = call(404, "GET", "/v1/schedules/sch_nope");
        assertThat(doc.check(op, error)).isEmpty();
        var badError = error.json().deepCopy();
        ((com.fasterxml.jackson.databind.node.ObjectNode) badError.get("error")).put("type", "oops");
        assertThat(doc.validate("/components/schemas/Error", badError)).isNotEmpty();
        // an error whose type does not go with its status
        var mislabelled = error.json().deepCopy();
        ((com.fasterxml.jackson.databind.node.ObjectNode) mislabelled.get("error"))
                .put("type", "invalid_request_error");
        assertThat(doc.validate(
                        doc.response(op, 404).orElseThrow().pointer() + "/content/application~1json/schema",
                        mislabelled))
                .isNotEmpty();
        // a status the operation does not list
        assertThat(doc.check(new OpenApiDocument.Operation("get", "/healthz"), error))
                .isNotEmpty();
        assertThat(problems).isEmpty();
    }

    @Test
    void everyRouteTheServerAnswersIsDocumentedAndEveryDocumentedOperationIsServed() throws Exception {
        Set<String> served = new TreeSet<>();
        for (ParsedEndpoint e : javalin(node.server).unsafe.internalRouter.allHttpHandlers()) {
            if (!e.endpoint.method.isHttpMethod()) continue;
            served.add(e.endpoint.method.name().toLowerCase(Locale.ROOT) + " " + e.endpoint.path);
        }
        Set<String> documented = doc.operations().stream()
                .map(o -> o.method() + " " + o.template())
                .collect(Collectors.toCollection(TreeSet::new));
        assertThat(served)
                .as("routes the server answers but openapi.json does not document")
                .allSatisfy(r -> assertThat(documented).contains(r));
        assertThat(documented)
                .as("operations openapi.json documents but the server does not answer")
                .allSatisfy(d -> assertThat(served).contains(d));
    }

    /** The Javalin app inside a node (a private field: the test reads the routes it really has). */
    static Javalin javalin(IdemServer server) throws ReflectiveOperationException {
        for (Field f : IdemServer.class.getDeclaredFields()) {
            if (Javalin.class.isAssignableFrom(f.getType())) {
                f.setAccessible(true);
                return (Javalin) f.get(server);
            }
        }
        throw new AssertionError("IdemServer holds no Javalin field any more; update this test");
    }

    @Test
    void aWalkThroughTheWholeApiAnswersAsDocumented() throws Exception {
        // operations
        call(200, "GET", "/healthz", null, null);
        call(200, "GET", "/readyz", null, null);
        call(200, "GET", "/metrics", null, null);
        call(200, "GET", "/openapi.json", null, null);
        for (String file : List.of(
                "/",
                "/dashboard.js",
                "/dashboard-schedules.js",
                "/dashboard-dead-letter.js",
                "/dashboard-create.js",
                "/dashboard-sources.js",
                "/dashboard-fanout.js",
                "/dashboard-messages.js",
                "/dashboard.css",
                "/favicon.svg")) {
            var served = call(200, "GET", file, null, null);
            assertThat(served.header("Content-Security-Policy")).as(file).contains("script-src 'self'");
            assertThat(served.raw()).as(file).isNotEmpty();
        }

        // create: every kind and most fields
        var now = call(
                201,
                "POST",
                "/v1/schedules",
                KEY,
                "{\"endpoint\":\"" + ok.url("/now") + "\",\"payload\":{\"n\":1},"
                        + "\"headers\":{\"X-Team\":\"billing\"},\"event_type\":\"invoice.reminder\",\"idempotency_key\":\"inv-1\",\"metadata\":{\"a\":[1,2]},"
                        + "\"retry\":{\"max_attempts\":3,\"initial_backoff\":\"1s\"},\"timeout\":\"10s\",\"auto_pause_after\":0,\"header_profile\":\"rrule\"}");
        String nowId = now.json().get("id").asText();
        var later = call(
                201,
                "POST",
                "/v1/schedules",
                KEY,
                "{\"endpoint\":\"" + ok.url("/later") + "\",\"fire_at\":\"2035-01-01T00:00:00Z\","
                        + "\"body\":\"hello\",\"content_type\":\"text/plain\",\"dedup_id\":\"walk-1\"}");
        String laterId = later.json().get("id").asText();
        var rrule = call(
                201,
                "POST",
                "/v1/schedules",
                KEY,
                "{\"endpoint\":\"" + ok.url("/rrule") + "\",\"rrule\":\"FREQ=MONTHLY;BYDAY=+2MO;BYHOUR=18;BYMINUTE=0\","
                        + "\"timezone\":\"Europe/Paris\",\"dtstart\":\"2030-01-01T09:00:00\",\"exdates\":[\"2030-02-11T18:00:00\"],\"count\":12,\"catch_up\":\"all\"}");
        assertThat(rrule.json().get("kind").asText()).isEqualTo("rrule");
        var cron = call(
                201,
                "POST",
                "/v1/schedules",
                KEY,
                "{\"endpoint\":\"" + ok.url("/cron") + "\",\"cron\":\"0 9 * * MON-FRI\","
                        + "\"timezone\":\"America/New_York\",\"until\":\"2040-01-01T00:00:00Z\"}");
        String cronId = cron.json().get("id").asText();
        var ended = call(
                201,
                "POST",
                "/v1/schedules",
                KEY,
                "{\"endpoint\":\"" + ok.url("/ended")
                        + "\",\"rrule\":\"FREQ=DAILY;COUNT=2\",\"dtstart\":\"2001-01-01T00:00:00\"}");
        assertThat(ended.json().get("status").asText()).isEqualTo("completed");
        var dedup = call(
                200,
                "POST",
                "/v1/schedules",
                KEY,
                "{\"endpoint\":\"" + ok.url("/other") + "\",\"dedup_id\":\"walk-1\"}");
        assertThat(dedup.header("Idem-Deduplicated")).isEqualTo("true");
        assertThat(dedup.json().get("id").asText()).isEqualTo(laterId);
        var batch = call(
                200,
                "POST",
                "/v1/schedules/batch",
                KEY,
                "{\"schedules\":[{\"endpoint\":\"" + ok.url("/b") + "\",\"delay\":\"1h\"},"
                        + "{\"endpoint\":\"ftp://example.com/x\"},{\"endpoint\":\"" + ok.url("/b")
                        + "\",\"dedup_id\":\"walk-1\"}]}");
        assertThat(batch.json().get("data"))
                .extracting(i -> i.get("status_code").asInt())
                .containsExactly(201, 400, 200);
        call(400, "POST", "/v1/schedules/batch", KEY, "{\"schedules\":[]}");

        // create under an Idempotency-Key: stored, replayed, reused
        String body = "{\"endpoint\":\"" + ok.url("/ik") + "\",\"delay\":\"1h\"}";
        var first = call(201, "POST", "/v1/schedules", KEY, body, Map.of("Idempotency-Key", "walk-ik"));
        var again = call(201, "POST", "/v1/schedules", KEY, body, Map.of("Idempotency-Key", "walk-ik"));
        assertThat(again.header("Idempotent-Replayed")).isEqualTo("true");
        assertThat(again.raw()).isEqualTo(first.raw());
        call(
                409,
                "POST",
                "/v1/schedules",
                KEY,
                "{\"endpoint\":\"" + ok.url("/ik2") + "\"}",
                Map.of("Idempotency-Key", "walk-ik"));
        call(400, "POST", "/v1/schedules", KEY, body, Map.of("Idempotency-Key", "k".repeat(256)));

        // create errors
        call(400, "POST", "/v1/schedules", KEY, "{not json");
        call(400, "POST", "/v1/schedules", KEY, "{\"endpoint\":\"https://example.com\",\"colour\":\"red\"}");
        call(400, "POST", "/v1/schedules", KEY, "{\"endpoint\":\"https://example.com\",\"rrule\":\"FREQ=SOMETIMES\"}");
        call(
                400,
                "POST",
                "/v1/schedules",
                KEY,
                "{\"endpoint\":\"https://example.com\",\"body\":\"" + "x".repeat(300 * 1024) + "\"}");
        call(401, "POST", "/v1/schedules", null, body);
        call(401, "POST", "/v1/schedules", "sk_test_nosuchkey0000", body);
        call(401, "POST", "/v1/schedules", null, body, Map.of("Authorization", "Basic abc"));

        // read
        call(200, "GET", "/v1/schedules/" + nowId);
        call(200, "GET", "/v1/schedules/" + cronId);
        call(404, "GET", "/v1/schedules/sch_nosuchschedule");
        call(401, "GET", "/v1/schedules/" + nowId, null, null);
        var page = call(200, "GET", "/v1/schedules?limit=2");
        assertThat(page.json().get("has_more").asBoolean()).isTrue();
        call(
                200,
                "GET",
                "/v1/schedules?limit=2&starting_after="
                        + page.json().at("/data/1/id").asText());
        call(200, "GET", "/v1/schedules?status=completed&limit=100");
        call(400, "GET", "/v1/schedules?status=sleeping");
        call(400, "GET", "/v1/schedules?limit=0");
        call(400, "GET", "/v1/schedules?limit=abc");
        call(404, "GET", "/v1/schedules?starting_after=sch_nosuchschedule");
        call(401, "GET", "/v1/schedules", null, null);

        // change
        call(
                200,
                "PATCH",
                "/v1/schedules/" + laterId,
                KEY,
                "{\"fire_at\":\"2036-01-01T00:00:00Z\",\"headers\":{\"X-New\":\"1\"},\"metadata\":null}");
        call(
                200,
                "PATCH",
                "/v1/schedules/" + cronId,
                KEY,
                "{\"cron\":\"30 10 * * *\",\"timezone\":\"Asia/Tokyo\"}",
                Map.of("Idempotency-Key", "walk-patch"));
        call(
                200,
                "PATCH",
                "/v1/schedules/" + cronId,
                KEY,
                "{\"cron\":\"30 10 * * *\",\"timezone\":\"Asia/Tokyo\"}",
                Map.of("Idempotency-Key", "walk-patch"));
        call(
                409,
                "PATCH",
                "/v1/schedules/" + cronId,
                KEY,
                "{\"cron\":\"0 10 * * *\"}",
                Map.of("Idempotency-Key", "walk-patch"));
        call(400, "PATCH", "/v1/schedules/" + laterId, KEY, "{\"colour\":\"red\"}");
        call(400, "PATCH", "/v1/schedules/" + laterId, KEY, "{\"timeout\":\"2h\"}");
        call(404, "PATCH", "/v1/schedules/sch_nosuchschedule", KEY, "{\"timeout\":\"5s\"}");
        call(401, "PATCH", "/v1/schedules/" + laterId, null, "{\"timeout\":\"5s\"}");

        // pause, resume, delete
        call(200, "POST", "/v1/schedules/" + cronId + "/pause");
        call(200, "POST", "/v1/schedules/" + cronId + "/resume", KEY, null, Map.of("Idempotency-Key", "walk-resume"));
        call(200, "POST", "/v1/schedules/" + cronId + "/resume", KEY, null, Map.of("Idempotency-Key", "walk-resume"));
        call(409, "POST", "/v1/schedules/" + cronId + "/pause", KEY, null, Map.of("Idempotency-Key", "walk-resume"));
        call(404, "POST", "/v1/schedules/sch_nosuchschedule/pause");
        call(404, "POST", "/v1/schedules/sch_nosuchschedule/resume");
        call(401, "POST", "/v1/schedules/" + cronId + "/pause", null, null);
        call(401, "POST", "/v1/schedules/" + cronId + "/resume", null, null);
        call(200, "DELETE", "/v1/schedules/" + cronId);
        call(200, "DELETE", "/v1/schedules/" + cronId);
        call(400, "POST", "/v1/schedules/" + cronId + "/pause");
        call(400, "POST", "/v1/schedules/" + cronId + "/resume");
        call(400, "PATCH", "/v1/schedules/" + cronId, KEY, "{\"timeout\":\"5s\"}");
        call(404, "DELETE", "/v1/schedules/sch_nosuchschedule");
        call(401, "DELETE", "/v1/schedules/" + cronId, null, null);
        call(400, "DELETE", "/v1/schedules/" + laterId, KEY, null, Map.of("Idempotency-Key", ""));

        // deliveries: one succeeded, one dead after a 500, one dead without any response, one scheduled
        String deadId = create(call(
                201,
                "POST",
                "/v1/schedules",
                KEY,
                "{\"endpoint\":\"" + failing.url("/fail") + "\",\"retry\":{\"max_attempts\":1}}"));
        String closedPort;
        try (ServerSocket s = new ServerSocket(0)) {
            closedPort = Integer.toString(s.getLocalPort());
        }
        String refusedId = create(call(
                201,
                "POST",
                "/v1/schedules",
                KEY,
                "{\"endpoint\":\"http://127.0.0.1:" + closedPort + "/x\",\"retry\":{\"max_attempts\":1}}"));
        String succeeded = awaitDelivery(nowId, "succeeded");
        String dead = awaitDelivery(deadId, "dead");
        String refused = awaitDelivery(refusedId, "dead");
        // due within the materialiser's horizon, so its delivery is written
        // with it, and not due before the walk is done
        String pendingId = create(call(
                201, "POST", "/v1/schedules", KEY, "{\"endpoint\":\"" + ok.url("/soon") + "\",\"delay\":\"25s\"}"));
        String scheduled = awaitDelivery(pendingId, "scheduled");
        var got = call(200, "GET", "/v1/deliveries/" + succeeded);
        assertThat(got.json().at("/attempts/0/status_code").asInt()).isEqualTo(200);
        assertThat(call(200, "GET", "/v1/deliveries/" + dead)
                        .json()
                        .at("/attempts/0/status_code")
                        .asInt())
                .isEqualTo(500);
        assertThat(call(200, "GET", "/v1/deliveries/" + refused)
                        .json()
                        .at("/attempts/0/status_code")
                        .isNull())
                .isTrue();
        call(200, "GET", "/v1/deliveries/" + scheduled);
        call(404, "GET", "/v1/deliveries/dlv_nosuchdelivery");
        call(401, "GET", "/v1/deliveries/" + succeeded, null, null);
        call(200, "GET", "/v1/deliveries");
        call(200, "GET", "/v1/deliveries?schedule_id=" + nowId + "&status=succeeded&limit=5");
        call(200, "GET", "/v1/deliveries?status=dead");
        var dPage = call(200, "GET", "/v1/deliveries?limit=1");
        call(
                200,
                "GET",
                "/v1/deliveries?limit=1&starting_after="
                        + dPage.json().at("/data/0/id").asText());
        call(200, "GET", "/v1/deliveries?schedule_id=sch_nosuchschedule");
        call(400, "GET", "/v1/deliveries?status=lost");
        call(400, "GET", "/v1/deliveries?limit=101");
        call(404, "GET", "/v1/deliveries?starting_after=dlv_nosuchdelivery");
        call(401, "GET", "/v1/deliveries", null, null);
        call(200, "POST", "/v1/deliveries/" + dead + "/replay", KEY, null, Map.of("Idempotency-Key", "walk-replay"));
        call(200, "POST", "/v1/deliveries/" + dead + "/replay", KEY, null, Map.of("Idempotency-Key", "walk-replay"));
        call(
                200,
                "POST",
                "/v1/deliveries/replay",
                KEY,
                "{\"status\":\"dead\",\"since\":\"1h\"}",
                Map.of("Idempotency-Key", "walk-bulk"));
        call(
                200,
                "POST",
                "/v1/deliveries/replay",
                KEY,
                "{\"status\":\"dead\",\"since\":\"1h\"}",
                Map.of("Idempotency-Key", "walk-bulk"));
        call(400, "POST", "/v1/deliveries/replay", KEY, "{\"status\":\"succeeded\"}");
        call(401, "POST", "/v1/deliveries/replay", null, "{\"status\":\"dead\"}");
        call(409, "POST", "/v1/deliveries/" + refused + "/replay", KEY, null, Map.of("Idempotency-Key", "walk-replay"));
        call(200, "POST", "/v1/deliveries/" + succeeded + "/replay");
        call(400, "POST", "/v1/deliveries/" + scheduled + "/replay");
        call(404, "POST", "/v1/deliveries/dlv_nosuchdelivery/replay");
        call(401, "POST", "/v1/deliveries/" + dead + "/replay", null, null);
        awaitDelivery(deadId, "dead");
        var stats = call(200, "GET", "/v1/stats");
        assertThat(stats.json().get("succeeded").asLong()).isPositive();
        assertThat(stats.json().get("dead").asLong()).isPositive();
        call(401, "GET", "/v1/stats", null, null);
        call(401, "GET", "/v1/stats", "sk_test_nosuchkey0000", null);

        // signing secret
        var secret = call(200, "GET", "/v1/signing-secret");
        assertThat(secret.json().get("previous_expires_at").isNull()).isTrue();
        var rotated =
                call(200, "POST", "/v1/signing-secret/rotate", KEY, null, Map.of("Idempotency-Key", "walk-rotate"));
        assertThat(rotated.json().get("previous_expires_at").isNull()).isFalse();
        call(200, "POST", "/v1/signing-secret/rotate", KEY, null, Map.of("Idempotency-Key", "walk-rotate"));
        call(200, "GET", "/v1/signing-secret");
        call(409, "POST", "/v1/signing-secret/rotate", KEY, "{}", Map.of("Idempotency-Key", "walk-rotate"));
        call(401, "GET", "/v1/signing-secret", null, null);
        call(401, "POST", "/v1/signing-secret/rotate", null, null);

        // inbound sources: CRUD under the API key, ingest under the provider's signature
        String srcBody =
                "{\"name\":\"stripe\",\"verify\":{\"scheme\":\"stripe\",\"secret\":\"whsec_walk\"},\"destination\":\""
                        + ok.url("/src") + "\"}";
        String sourceId =
                create(call(201, "POST", "/v1/sources", KEY, srcBody, Map.of("Idempotency-Key", "walk-source")));
        call(201, "POST", "/v1/sources", KEY, srcBody, Map.of("Idempotency-Key", "walk-source"));
        call(409, "POST", "/v1/sources", KEY, "{}", Map.of("Idempotency-Key", "walk-source"));
        call(400, "POST", "/v1/sources", KEY, "{\"name\":\"x\"}");
        call(401, "POST", "/v1/sources", null, srcBody);
        call(200, "GET", "/v1/sources");
        call(404, "GET", "/v1/sources?starting_after=src_nosuchsource");
        call(401, "GET", "/v1/sources", null, null);
        call(200, "GET", "/v1/sources/" + sourceId);
        call(404, "GET", "/v1/sources/src_nosuchsource");
        call(401, "GET", "/v1/sources/" + sourceId, null, null);
        call(
                200,
                "PATCH",
                "/v1/sources/" + sourceId,
                KEY,
                "{\"verify\":{\"secret\":\"whsec_walk2\"}}",
                Map.of("Idempotency-Key", "walk-src-patch"));
        call(409, "PATCH", "/v1/sources/" + sourceId, KEY, "{}", Map.of("Idempotency-Key", "walk-src-patch"));
        call(400, "PATCH", "/v1/sources/" + sourceId, KEY, "{\"dedup\":\"body\"}");
        call(404, "PATCH", "/v1/sources/src_nosuchsource", KEY, "{}");
        call(401, "PATCH", "/v1/sources/" + sourceId, null, "{}");
        String event = "{\"id\":\"evt_walk\"}";
        long ts = System.currentTimeMillis() / 1000;
        Map<String, String> signed = Map.of(
                "Stripe-Signature",
                dev.idem.wire.StripeSignatureVerifier.sign(
                        "whsec_walk2", ts, event.getBytes(java.nio.charset.StandardCharsets.UTF_8)),
                "Content-Type",
                "application/json");
        var ingested = call(200, "POST", "/in/" + sourceId, null, event, signed);
        call(200, "POST", "/in/" + sourceId, null, event, signed);
        call(403, "POST", "/in/" + sourceId, null, event + " ", signed);
        call(413, "POST", "/in/" + sourceId, null, "x".repeat(1024 * 1024 + 1), signed);
        call(404, "POST", "/in/src_nosuchsource", null, event, signed);
        call(200, "GET", "/v1/deliveries?source_id=" + sourceId);
        assertThat(call(200, "GET", "/v1/deliveries?source_id=" + sourceId)
                        .json()
                        .at("/data/0/id")
                        .asText())
                .isEqualTo(ingested.json().get("delivery_id").asText());
        call(400, "GET", "/v1/deliveries?source_id=" + sourceId + "&schedule_id=" + nowId);
        call(200, "DELETE", "/v1/sources/" + sourceId, KEY, null, Map.of("Idempotency-Key", "walk-src-delete"));
        call(409, "DELETE", "/v1/sources/" + sourceId, KEY, "{}", Map.of("Idempotency-Key", "walk-src-delete"));
        call(404, "DELETE", "/v1/sources/src_nosuchsource");
        call(401, "DELETE", "/v1/sources/" + sourceId, null, null);

        // settings (no event chosen while the walk runs: its dead deliveries raise no alert)
        var settings = call(200, "GET", "/v1/settings");
        assertThat(settings.json().get("alert_endpoint").isNull()).isTrue();
        String alerts = "{\"alert_endpoint\":\"" + ok.url("/alerts") + "\",\"alert_events\":[]}";
        assertThat(call(200, "PATCH", "/v1/settings", KEY, alerts, Map.of("Idempotency-Key", "walk-settings"))
                        .json()
                        .get("alert_endpoint")
                        .asText())
                .isEqualTo(ok.url("/alerts"));
        call(200, "PATCH", "/v1/settings", KEY, alerts, Map.of("Idempotency-Key", "walk-settings"));
        call(409, "PATCH", "/v1/settings", KEY, "{}", Map.of("Idempotency-Key", "walk-settings"));
        call(400, "PATCH", "/v1/settings", KEY, "{\"alert_events\":[\"delivery.lost\"]}");
        call(400, "PATCH", "/v1/settings", KEY, "{\"alert_endpoint\":\"ftp://example.com\"}");
        call(200, "PATCH", "/v1/settings", KEY, "{\"alert_endpoint\":null}");
        call(401, "GET", "/v1/settings", null, null);
        call(401, "PATCH", "/v1/settings", null, "{}");

        // recurrence preview (no key)
        var preview = call(
                200,
                "GET",
                "/v1/recurrence/preview?rrule=" + q("FREQ=WEEKLY;BYDAY=TU,TH;COUNT=5")
                        + "&dtstart=1997-09-02T09:00:00&timezone=America/New_York&count=10",
                null,
                null);
        assertThat(preview.json().get("occurrences")).hasSize(5);
        call(
                200,
                "GET",
                "/v1/recurrence/preview?cron=" + q("*/15 * * * *") + "&count=3&exdates=" + q("2030-01-01T00:00:00"),
                null,
                null);
        call(
                400,
                "GET",
                "/v1/recurrence/preview?rrule=" + q("FREQ=DAILY") + "&until=" + q("2000-01-01T00:00:00Z")
                        + "&dtstart=2030-01-01T00:00:00",
                null,
                null);
        call(400, "GET", "/v1/recurrence/preview", null, null);
        call(400, "GET", "/v1/recurrence/preview?rrule=" + q("FREQ=DAILY") + "&count=1001", null, null);
        call(400, "GET", "/v1/recurrence/preview?rrule=" + q("FREQ=DAILY") + "&timezone=Mars/Olympus", null, null);
        call(400, "GET", "/v1/recurrence/preview?cron=" + q("61 * * * *"), null, null);
        call(400, "GET", "/v1/recurrence/preview?rrule=" + q("FREQ=DAILY") + "&colour=red", null, null);

        new FanoutApiWalk(this::call, KEY).walk(ok.url("/fanout"));
        new PortalApiWalk(this::call, KEY).walk(ok.url("/portal"));

        // a query parameter that is not valid percent-encoding is a 400 on every route
        for (var op : doc.operations()) {
            String path = op.template()
                    .replace("{id}", op.template().contains("deliver") ? dead : laterId)
                    .replace("{source_id}", "src_x")
                    .replace("{name}", "invoice.paid");
            String key =
                    op.template().startsWith("/v1/") && !op.template().equals("/v1/recurrence/preview") ? KEY : null;
            ApiClientForTests.Reply r = rawQuery(op.method().toUpperCase(Locale.ROOT), path + "?x=%zz", key);
            assertThat(r.status()).as("%s with ?x=%%zz -> %s", op, r.raw()).isEqualTo(400);
            seen.computeIfAbsent(op, k -> new TreeSet<>()).add(400);
            problems.addAll(doc.check(op, r));
        }

        assertThat(problems).as("responses that do not match openapi.json").isEmpty();
        // every documented operation was seen answering, with a success and with an error
        for (var op : doc.operations()) {
            assertThat(seen).as("walk exercised %s", op).containsKey(op);
            assertThat(seen.get(op)).as("%s answered a 2xx", op).anyMatch(s -> s / 100 == 2);
            if (!op.template().startsWith("/v1/")) continue;
            assertThat(seen.get(op)).as("%s answered an error", op).anyMatch(s -> s >= 400);
        }
        Set<Integer> statuses = seen.values().stream().flatMap(Set::stream).collect(Collectors.toSet());
        assertThat(statuses).contains(200, 201, 400, 401, 404, 409);
    }

    /** java.net.URI refuses a broken escape, so this request goes out through a plain socket. */
    private ApiClientForTests.Reply rawQuery(String method, String pathAndQuery, String key)
            throws java.io.IOException {
        try (java.net.Socket s = new java.net.Socket("127.0.0.1", node.server.port())) {
            s.setSoTimeout(10_000);
            String req = method + " " + pathAndQuery + " HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                    + (key == null ? "" : "Authorization: Bearer " + key + "\r\n")
                    + "Content-Length: 0\r\nConnection: close\r\n\r\n";
            s.getOutputStream().write(req.getBytes(StandardCharsets.UTF_8));
            String text = new String(s.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            int split = text.indexOf("\r\n\r\n");
            String head = text.substring(0, split);
            String body = text.substring(split + 4);
            java.net.http.HttpHeaders headers = java.net.http.HttpHeaders.of(
                    java.util.Arrays.stream(head.split("\r\n"))
                            .skip(1)
                            .filter(l -> l.contains(":"))
                            .collect(Collectors.groupingBy(
                                    l -> l.substring(0, l.indexOf(':')).trim(),
                                    Collectors.mapping(
                                            l -> l.substring(l.indexOf(':') + 1).trim(), Collectors.toList()))),
                    (a, b) -> true);
            int status = Integer.parseInt(head.split(" ")[1]);
            return new ApiClientForTests.Reply(
                    status, ApiClientForTests.JSON.readTree(body), body, new RawResponse(status, headers, body));
        }
    }

    /** Just enough of an HttpResponse for a Reply read off a socket. */
    private record RawResponse(int statusCode, java.net.http.HttpHeaders headers, String body)
            implements java.net.http.HttpResponse<String> {
        @Override
        public java.net.http.HttpRequest request() {
            return null;
        }

        @Override
        public java.util.Optional<java.net.http.HttpResponse<String>> previousResponse() {
            return java.util.Optional.empty();
        }

        @Override
        public java.util.Optional<javax.net.ssl.SSLSession> sslSession() {
            return java.util.Optional.empty();
        }

        @Override
        public URI uri() {
            return null;
        }

        @Override
        public java.net.http.HttpClient.Version version() {
            return java.net.http.HttpClient.Version.HTTP_1_1;
        }
    }

    private String create(ApiClientForTests.Reply reply) {
        return reply.json().get("id").asText();
    }

    /** The schedule's first delivery once it has {@code status}. */
    private String awaitDelivery(String scheduleId, String status) {
        String[] id = new String[1];
        await().atMost(Duration.ofSeconds(20))
                .pollInterval(Duration.ofMillis(100))
                .until(() -> {
                    JsonNode data = node.api
                            .call("GET", "/v1/deliveries?schedule_id=" + scheduleId, KEY, null)
                            .json()
                            .get("data");
                    if (data.isEmpty() || !data.get(0).get("status").asText().equals(status)) return false;
                    id[0] = data.get(0).get("id").asText();
                    return true;
                });
        return id[0];
    }

    @Test
    void aRateLimitedKeyGets429WithRetryAfterAsDocumented(@TempDir Path other) {
        try (ContractServer limited =
                ContractServer.start(TestStores.sqlite(other, Clock.systemUTC()), other, true, true, 1)) {
            // one request a second, bursts of two: the third request in a row is over the limit, whatever the endpoint
            List<String[]> calls = List.of(
                    new String[] {"GET", "/v1/schedules"},
                    new String[] {"GET", "/v1/signing-secret"},
                    new String[] {"POST", "/v1/schedules"},
                    new String[] {"GET", "/v1/deliveries"},
                    new String[] {"GET", "/v1/schedules/sch_x"},
                    new String[] {"GET", "/v1/schedules"},
                    new String[] {"GET", "/v1/signing-secret"},
                    new String[] {"GET", "/v1/deliveries"});
            int limitedSeen = 0;
            for (String[] c : calls) {
                var r = limited.api.call(
                        c[0],
                        c[1],
                        KEY,
                        c[0].equals("POST")
                                ? "{\"endpoint\":\"https://example.com\",\"fire_at\":\"2035-01-01T00:00:00Z\"}"
                                : null);
                if (r.status() != 429) continue;
                limitedSeen++;
                assertThat(r.json().at("/error/type").asText()).isEqualTo("rate_limit_error");
                assertThat(Long.parseLong(r.header("Retry-After"))).isPositive();
                var op = new OpenApiDocument.Operation(
                        c[0].toLowerCase(Locale.ROOT), doc.template(c[1]).orElseThrow());
                assertThat(doc.check(op, r)).isEmpty();
            }
            assertThat(limitedSeen).isGreaterThanOrEqualTo(2);
            // another key has its own bucket; the preview and operations have none
            assertThat(limited.api
                            .call("GET", "/v1/schedules", limited.liveKey, null)
                            .status())
                    .isEqualTo(200);
            assertThat(limited.api.call("GET", "/healthz", null, null).status()).isEqualTo(200);
        }
    }

    @Test
    void aNodeWhoseStoreIsGoneAnswers503AsDocumented(@TempDir Path other) {
        Store store = TestStores.sqlite(other, Clock.systemUTC());
        try (ContractServer broken = ContractServer.start(store, other, true, false)) {
            store.close();
            ApiClientForTests api = broken.api;
            // /readyz answers from a probe refreshed every second
            org.awaitility.Awaitility.await()
                    .atMost(java.time.Duration.ofSeconds(20))
                    .until(() -> api.call("GET", "/readyz", null, null).status() == 503);
            var ready = api.call("GET", "/readyz", null, null);
            var list = api.call("GET", "/v1/schedules", KEY, null);
            var create = api.call(
                    "POST",
                    "/v1/schedules",
                    KEY,
                    "{\"endpoint\":\"https://example.com\",\"fire_at\":\"2035-01-01T00:00:00Z\"}");
            assertThat(ready.status()).isEqualTo(503);
            // the store's gate has seen it fail (the probe, or a connection refused), so callers fail at once with
            // the retryable store_unavailable (docs/api.md, "Errors the transport and the database cause")
            assertThat(list.status()).isEqualTo(503);
            assertThat(create.status()).isEqualTo(503);
            assertThat(list.json().at("/error/type").asText()).isEqualTo("api_error");
            assertThat(list.json().at("/error/code").asText()).isEqualTo("store_unavailable");
            assertThat(create.header("Retry-After")).isEqualTo("2");
            assertThat(doc.check(new OpenApiDocument.Operation("get", "/readyz"), ready))
                    .isEmpty();
            assertThat(doc.check(new OpenApiDocument.Operation("get", "/v1/schedules"), list))
                    .isEmpty();
            assertThat(doc.check(new OpenApiDocument.Operation("post", "/v1/schedules"), create))
                    .isEmpty();
        }
    }
}
