package dev.idem.server.contract;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import dev.idem.server.ApiClientForTests;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Issue 18's bad inputs, on every store alike: each is a 400 naming the field, at create and at PATCH, and
 * changes nothing (rows counted in the store's own database; a refused PATCH leaves the schedule as GET showed
 * it). The node allows private endpoints, so what is refused here is refused whatever the network.
 */
abstract class BadInputContract extends OneNodeContract {
    StoreRows rows;

    @BeforeAll
    void countRows() {
        rows = new StoreRows(db.config());
    }

    static String json(String s) {
        return ApiClientForTests.JSON.getNodeFactory().textNode(s).toString();
    }

    /** {@code fields} (a JSON object's members) refused at create with {@code code} on {@code param}, and again as a PATCH. */
    void assertRefusedAtCreateAndPatch(String fields, String code, String param) {
        var before = rows.counts();
        String endpoint = fields.startsWith("\"endpoint\"") ? "" : "\"endpoint\":\"" + receiver.url("/x") + "\",";
        var created =
                call("POST", "/v1/schedules", "{" + endpoint + "\"fire_at\":\"2035-01-01T00:00:00Z\"," + fields + "}");
        assertRefused(created, code, param, fields);
        assertThat(rows.counts())
                .as("a refused create wrote nothing: %s", fields)
                .isEqualTo(before);

        String id = call(
                        "POST",
                        "/v1/schedules",
                        "{\"endpoint\":\"" + receiver.url("/x") + "\",\"fire_at\":\"2035-01-01T00:00:00Z\"}")
                .json()
                .get("id")
                .asText();
        var stored = call("GET", "/v1/schedules/" + id, null);
        var patched = call("PATCH", "/v1/schedules/" + id, "{" + fields + "}");
        assertRefused(patched, code, param, "PATCH " + fields);
        assertThat(call("GET", "/v1/schedules/" + id, null).raw())
                .as("a refused PATCH changed nothing")
                .isEqualTo(stored.raw());
        call("DELETE", "/v1/schedules/" + id, null);
    }

    /** The anonymous preview route with {@code query} followed by {@code last}, URL-encoded (a rule, cron or zone). */
    ApiClientForTests.Reply preview(String query, String last) {
        return node.api.call(
                "GET",
                "/v1/recurrence/preview?" + query
                        + java.net.URLEncoder.encode(last, java.nio.charset.StandardCharsets.UTF_8),
                null,
                null);
    }

    static void assertRefused(ApiClientForTests.Reply r, String code, String param, String what) {
        assertThat(r.status()).as("%s -> %s", what, r.raw()).isEqualTo(400);
        JsonNode e = r.json().get("error");
        assertThat(e.get("type").asText()).isEqualTo("invalid_request_error");
        assertThat(e.get("code").asText()).as("%s -> %s", what, r.raw()).isEqualTo(code);
        assertThat(e.get("param").asText()).as("%s -> %s", what, r.raw()).isEqualTo(param);
        assertThat(e.get("message").asText()).isNotBlank();
    }

    // ---- 18.1, 18.2, 18.9: endpoints that no connection can be made to

    @ParameterizedTest(name = "{0}")
    @ValueSource(
            strings = {
                "http://127.0.0.1:99999/x",
                "http://127.0.0.1:65536/x",
                "https://example.com:0/x",
                "http://127.0.0.1:0/",
                "http://127.0.0.1:99999999999/x"
            })
    void anEndpointPortOutsideOneTo65535IsRefused(String endpoint) {
        assertRefusedAtCreateAndPatch("\"endpoint\":" + json(endpoint), "endpoint_invalid", "endpoint");
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"http://[fe80::1%25lo]/x", "http://[fe80::1%25eth0]:8080/x", "https://[2001:db8::1%251]/"})
    void anIpv6LiteralWithAZoneIdIsRefused(String endpoint) {
        assertRefusedAtCreateAndPatch("\"endpoint\":" + json(endpoint), "endpoint_invalid", "endpoint");
    }

    @Test
    void theHighestAndLowestPortsAreAccepted() {
        for (String endpoint : List.of("http://127.0.0.1:1/x", "http://127.0.0.1:65535/x")) {
            var r = call(
                    "POST",
                    "/v1/schedules",
                    "{\"endpoint\":" + json(endpoint) + ",\"fire_at\":\"2035-01-01T00:00:00Z\"}");
            assertThat(r.status()).as(r.raw()).isEqualTo(201);
            call("DELETE", "/v1/schedules/" + r.json().get("id").asText(), null);
        }
    }

    // ---- 18.3: headers

    @ParameterizedTest(name = "{0}")
    @ValueSource(
            strings = {
                "\u20ac",
                "price: 5 \u20ac",
                "\u0100",
                "a\u0085b",
                "del\u007f",
                "\u4e2d",
                "\uD83D\uDE00",
                "bell\u0007"
            })
    void aHeaderValueAnHttpClientCannotSendAsGivenIsRefused(String value) {
        assertRefusedAtCreateAndPatch("\"headers\":{\"X-A\":" + json(value) + "}", "header_invalid", "headers.X-A");
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(
            strings = {
                "TE",
                "te",
                "Keep-Alive",
                "Proxy-Authorization",
                "Proxy-Authenticate",
                "Proxy-Connection",
                "Connection",
                "Upgrade",
                "Transfer-Encoding",
                "Trailer",
                "Host",
                "Content-Length",
                "Expect",
                "HTTP2-Settings"
            })
    void aHopByHopHeaderIsRefused(String name) {
        assertRefusedAtCreateAndPatch("\"headers\":{" + json(name) + ":\"x\"}", "header_reserved", "headers." + name);
    }

    @Test
    void printableLatin1HeaderValuesArriveAsSent() {
        String value = "caf\u00e9 \u00a0\u00ff ~!"; // (a tab is allowed too, but the JDK server reads it as a space)
        var r = call(
                "POST",
                "/v1/schedules",
                "{\"endpoint\":\"" + receiver.url("/latin1") + "\",\"headers\":{\"X-Latin\":" + json(value) + "}}");
        assertThat(r.status()).as(r.raw()).isEqualTo(201);
        await().atMost(Duration.ofSeconds(30))
                .until(() -> receiver.requests.stream().anyMatch(q -> q.path().equals("/latin1")));
        var got = receiver.requests.stream()
                .filter(q -> q.path().equals("/latin1"))
                .findFirst()
                .orElseThrow();
        // the JDK server reads header bytes as ISO-8859-1: one byte per character, as sent
        assertThat(got.header("X-Latin")).isEqualTo(value);
    }

    // ---- 18.4: text no store can hold

    @Test
    void aNulInDedupIdIsA400OnEveryStore() {
        assertRefusedAtCreateAndPatch("\"dedup_id\":\"a\\u0000b\"", "parameter_invalid_characters", "dedup_id");
    }

    @Test
    void anUnpairedSurrogateInIdempotencyKeyIsA400OnEveryStore() {
        assertRefusedAtCreateAndPatch(
                "\"idempotency_key\":\"k\\ud800\"", "parameter_invalid_characters", "idempotency_key");
    }

    /** In a batch such a string is refused like malformed JSON: the whole call, naming the item and field. */
    @Test
    void aNulInABatchItemRefusesTheCallNamingTheItem() {
        var before = rows.counts();
        String ok = "{\"endpoint\":\"" + receiver.url("/x") + "\",\"fire_at\":\"2035-01-01T00:00:00Z\"}";
        var r = call(
                "POST",
                "/v1/schedules/batch",
                "{\"schedules\":[" + ok + ",{\"endpoint\":\"" + receiver.url("/x") + "\",\"dedup_id\":\"a\\u0000\"}]}");
        assertRefused(r, "parameter_invalid_characters", "schedules[1].dedup_id", "batch");
        assertThat(rows.counts()).isEqualTo(before);
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(
            strings = {
                "/v1/deliveries?schedule_id=%00",
                "/v1/schedules?starting_after=sch_%00",
                "/v1/deliveries?starting_after=%00x",
                "/v1/schedules?status=%00"
            })
    void aNulInAQueryParameterIsA400OnEveryStore(String path) {
        var r = call("GET", path, null);
        assertThat(r.status()).as("%s -> %s", path, r.raw()).isEqualTo(400);
        assertThat(r.json().at("/error/code").asText()).isEqualTo("parameter_invalid_characters");
    }

    // ---- 18.9: time zones

    @ParameterizedTest(name = "{0}")
    @ValueSource(
            strings = {
                "Z",
                "GMT+14",
                "UTC+01:00",
                "+02:00",
                "SystemV/AST4",
                "EST5EDT",
                "EST",
                "Etc/GMT+5",
                "Etc/UTC",
                "GMT",
                "US/Eastern",
                "Japan"
            })
    void aZoneThatIsNotAnIanaRegionOrUtcIsRefused(String zone) {
        var before = rows.counts();
        var r = call(
                "POST",
                "/v1/schedules",
                "{\"endpoint\":\"" + receiver.url("/x") + "\",\"rrule\":\"FREQ=DAILY\",\"timezone\":" + json(zone)
                        + "}");
        assertRefused(r, "invalid_timezone", "timezone", zone);
        assertThat(rows.counts()).isEqualTo(before);
        String id = call(
                        "POST",
                        "/v1/schedules",
                        "{\"endpoint\":\"" + receiver.url("/x")
                                + "\",\"cron\":\"0 9 * * *\",\"timezone\":\"Europe/Paris\"}")
                .json()
                .get("id")
                .asText();
        var stored = call("GET", "/v1/schedules/" + id, null);
        assertRefused(
                call("PATCH", "/v1/schedules/" + id, "{\"timezone\":" + json(zone) + "}"),
                "invalid_timezone",
                "timezone",
                "PATCH " + zone);
        assertThat(call("GET", "/v1/schedules/" + id, null).raw()).isEqualTo(stored.raw());
        call("DELETE", "/v1/schedules/" + id, null);
        var preview = preview("rrule=FREQ%3DDAILY&dtstart=2030-01-01T09:00:00&timezone=", zone);
        assertThat(preview.status()).as(preview.raw()).isEqualTo(400);
        assertThat(preview.json().at("/error/code").asText()).isEqualTo("invalid_timezone");
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(
            strings = {
                "UTC",
                "Europe/Paris",
                "America/Argentina/Buenos_Aires",
                "Asia/Kolkata",
                "Pacific/Chatham",
                "Antarctica/Troll"
            })
    void anIanaRegionOrUtcIsAccepted(String zone) {
        var r = call(
                "POST",
                "/v1/schedules",
                "{\"endpoint\":\"" + receiver.url("/x") + "\",\"rrule\":\"FREQ=DAILY\",\"timezone\":" + json(zone)
                        + "}");
        assertThat(r.status()).as(r.raw()).isEqualTo(201);
        assertThat(r.json().get("timezone").asText()).isEqualTo(zone);
        call("DELETE", "/v1/schedules/" + r.json().get("id").asText(), null);
    }

    // ---- cron day-of-month W, L and weekday # at the edges of the calendar

    /**
     * cron-utils threw {@code DateTimeException} (a 500 {@code api_error}) for a {@code nW} in a month without day
     * n; now a cron that can never fire is refused as {@code 0 0 31 2 *} always was, and one that does not parse
     * as {@code invalid_cron}: at preview, create, batch create and PATCH alike, writing nothing. Day-of-week
     * {@code 5-L} threw {@code ClassCastException} in cron-utils, and {@code L-2} was read as Sunday.
     */
    @ParameterizedTest(name = "{0} -> {1}")
    @CsvSource(
            delimiter = '|',
            value = {
                "0 0 31W 2 ?        | rule_has_no_occurrences",
                "0 0 30W 2 *        | rule_has_no_occurrences",
                "0 0 31W 4,6,9,11 ? | rule_has_no_occurrences",
                "0 0 15W * */6      | rule_has_no_occurrences",
                "0 0 L-30 2 ?       | rule_has_no_occurrences",
                "0 0 ? * 1#6        | rule_has_no_occurrences",
                "0 0 31 2 *         | rule_has_no_occurrences",
                "0 0 32W * ?        | invalid_cron",
                "0 0 1-5W * ?       | invalid_cron",
                "0 0 L-2W * ?       | invalid_cron",
                "0 0 31W,30W 2 ?    | rule_has_no_occurrences",
                "0 0 L-30,30W 2 ?   | rule_has_no_occurrences",
                "0 0 1,L-2W * ?     | invalid_cron",
                "0 0 1,32W * ?      | invalid_cron",
                "0 0 ?,L * ?        | invalid_cron",
                "0 0 1 * ?,MON      | invalid_cron",
                "0 0 ? * L-2        | invalid_cron",
                "0 0 ? * 5-L        | invalid_cron",
                "0 0 ? * MON,L/2    | invalid_cron"
            })
    void aCronThatNeverFiresOrDoesNotParseIsA400EverywhereAndWritesNothing(String cron, String code) {
        var before = rows.counts();
        var preview = preview("cron=", cron);
        assertRefused(preview, code, "cron", "preview " + cron);
        String item = "{\"endpoint\":\"" + receiver.url("/x") + "\",\"cron\":" + json(cron) + "}";
        assertRefused(call("POST", "/v1/schedules", item), code, "cron", "create " + cron);
        var batch = call("POST", "/v1/schedules/batch", "{\"schedules\":[" + item + "]}");
        assertThat(batch.status()).as(batch.raw()).isEqualTo(200);
        assertThat(batch.json().at("/data/0/status_code").asInt())
                .as(batch.raw())
                .isEqualTo(400);
        assertThat(batch.json().at("/data/0/error/code").asText())
                .as(batch.raw())
                .isEqualTo(code);
        assertThat(batch.json().at("/data/0/error/param").asText()).isEqualTo("cron");
        assertThat(batch.json().get("created").asInt()).isZero();
        assertThat(rows.counts()).as("nothing written for %s", cron).isEqualTo(before);

        String id = call(
                        "POST", "/v1/schedules", "{\"endpoint\":\"" + receiver.url("/x") + "\",\"cron\":\"0 9 * * *\"}")
                .json()
                .get("id")
                .asText();
        var stored = call("GET", "/v1/schedules/" + id, null);
        assertRefused(
                call("PATCH", "/v1/schedules/" + id, "{\"cron\":" + json(cron) + "}"), code, "cron", "PATCH " + cron);
        assertThat(call("GET", "/v1/schedules/" + id, null).raw()).isEqualTo(stored.raw());
        call("DELETE", "/v1/schedules/" + id, null);
    }

    /**
     * A day-of-month list is the union of its elements, {@code L}, {@code L-n}, {@code LW} and {@code nW} included
     * (cron-utils alone dropped them: {@code 1,L} fired on the 1st only), in the preview and on create alike.
     */
    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"0 0 1,L * ?", "0 0 1,31W * ?", "0 0 L,LW * ?", "0 0 15,L-1 * *"})
    void aDayOfMonthListWithLastDayOrNearestWeekdayFiresOnEachElement(String cron) {
        var preview = preview("count=24&cron=", cron);
        assertThat(preview.status()).as(preview.raw()).isEqualTo(200);
        java.util.Set<String> kinds = new java.util.TreeSet<>();
        for (JsonNode o : preview.json().get("occurrences")) {
            java.time.LocalDate date =
                    java.time.LocalDateTime.parse(o.get("local").asText()).toLocalDate();
            java.time.YearMonth month = java.time.YearMonth.from(date);
            java.util.List<String> matched = new java.util.ArrayList<>();
            for (String element : cron.split(" ")[2].split(",")) {
                if (date.equals(day(element, month))) matched.add(element);
            }
            assertThat(matched).as("%s: %s", cron, date).isNotEmpty();
            kinds.addAll(matched);
        }
        assertThat(kinds)
                .as("within 24 occurrences every element fired")
                .containsExactlyInAnyOrder(cron.split(" ")[2].split(","));
        var created = call(
                "POST", "/v1/schedules", "{\"endpoint\":\"" + receiver.url("/x") + "\",\"cron\":" + json(cron) + "}");
        assertThat(created.status()).as(created.raw()).isEqualTo(201);
        assertThat(created.json().get("next_fire_at").asText())
                .isEqualTo(preview.json().at("/occurrences/0/utc").asText());
        call("DELETE", "/v1/schedules/" + created.json().get("id").asText(), null);
    }

    /** The day of {@code month} a day-of-month element names (Quartz's definitions), or null when it has none. */
    private static java.time.LocalDate day(String element, java.time.YearMonth month) {
        int last = month.lengthOfMonth();
        if (element.equals("L")) return month.atEndOfMonth();
        if (element.startsWith("L-")) {
            int d = last - Integer.parseInt(element.substring(2));
            return d < 1 ? null : month.atDay(d);
        }
        boolean nearestWeekday = element.endsWith("W");
        int n = element.equals("LW")
                ? last
                : Integer.parseInt(nearestWeekday ? element.substring(0, element.length() - 1) : element);
        if (n > last) return null;
        java.time.LocalDate d = month.atDay(n);
        if (!nearestWeekday) return d;
        if (d.getDayOfWeek() == java.time.DayOfWeek.SATURDAY) return n == 1 ? d.plusDays(2) : d.minusDays(1);
        if (d.getDayOfWeek() == java.time.DayOfWeek.SUNDAY) return n == last ? d.minusDays(2) : d.plusDays(1);
        return d;
    }

    /** A month without day n has no nW (as it has no plain n); the months that have it still fire, on a weekday. */
    @ParameterizedTest(name = "{0}")
    @CsvSource(
            delimiter = '|',
            value = {"0 0 31W * ?  | 31", "0 0 30W * ?  | 30", "0 0 29W 2 ?  | 29", "0 0 31W 1-12 * | 31"})
    void aNearestWeekdayToADaySomeMonthsLackFiresInTheMonthsThatHaveIt(String cron, int day) {
        var preview = preview("count=24&cron=", cron);
        assertThat(preview.status()).as(preview.raw()).isEqualTo(200);
        JsonNode occurrences = preview.json().get("occurrences");
        assertThat(occurrences).hasSize(24);
        for (JsonNode o : occurrences) {
            java.time.LocalDate date =
                    java.time.LocalDateTime.parse(o.get("local").asText()).toLocalDate();
            assertThat(date.lengthOfMonth()).as("%s: %s", cron, date).isGreaterThanOrEqualTo(day);
            assertThat(date.getDayOfWeek().getValue()).as("%s: %s", cron, date).isLessThanOrEqualTo(5);
            assertThat(Math.abs(date.getDayOfMonth() - day))
                    .as("%s: %s", cron, date)
                    .isLessThanOrEqualTo(2);
        }
        var created = call(
                "POST", "/v1/schedules", "{\"endpoint\":\"" + receiver.url("/x") + "\",\"cron\":" + json(cron) + "}");
        assertThat(created.status()).as(created.raw()).isEqualTo(201);
        assertThat(created.json().get("next_fire_at").asText())
                .isEqualTo(occurrences.get(0).get("utc").asText());
        call("DELETE", "/v1/schedules/" + created.json().get("id").asText(), null);
    }

    // ---- COUNT whose last occurrence is too far to find

    /**
     * A counted rule's end is found once when the schedule is created; one that would take seconds of CPU (dozens
     * of periods per occurrence, a million occurrences) is refused at create, PATCH and preview, writing nothing,
     * while a million occurrences of an ordinary rule written the long way round are still accepted.
     */
    @Test
    void aCountWhoseEndIsTooCostlyToFindIsA400AndAReasonableMillionIsNot() {
        String costly = "FREQ=SECONDLY;INTERVAL=61;BYSECOND=0;COUNT=1000000";
        var before = rows.counts();
        String body = "{\"endpoint\":\"" + receiver.url("/x") + "\",\"rrule\":" + json(costly)
                + ",\"dtstart\":\"2030-01-01T00:00:00\"}";
        assertRefused(call("POST", "/v1/schedules", body), "count_too_costly", "count", costly);
        assertRefused(
                preview("dtstart=2030-01-01T00:00:00&rrule=", costly),
                "count_too_costly",
                "count",
                "preview " + costly);
        assertThat(rows.counts()).isEqualTo(before);

        var daily = call(
                "POST",
                "/v1/schedules",
                "{\"endpoint\":\"" + receiver.url("/x")
                        + "\",\"rrule\":\"FREQ=MINUTELY;BYHOUR=9;BYMINUTE=0;COUNT=1000000\",\"dtstart\":\"2030-01-01T00:00:00\"}");
        assertThat(daily.status()).as(daily.raw()).isEqualTo(201);
        assertThat(java.time.Instant.parse(daily.json().get("next_fire_at").asText()))
                .isEqualTo(java.time.Instant.parse("2030-01-01T09:00:00Z"));
        String id = daily.json().get("id").asText();
        var stored = call("GET", "/v1/schedules/" + id, null);
        assertRefused(
                call("PATCH", "/v1/schedules/" + id, "{\"rrule\":" + json(costly) + "}"),
                "count_too_costly",
                "count",
                "PATCH " + costly);
        assertThat(call("GET", "/v1/schedules/" + id, null).raw()).isEqualTo(stored.raw());
        call("DELETE", "/v1/schedules/" + id, null);
    }
}
