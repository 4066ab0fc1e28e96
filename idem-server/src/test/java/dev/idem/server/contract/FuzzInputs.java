package dev.idem.server.contract;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.Tuple;

/**
 * Generators of request bodies and query strings for the API fuzz properties: JSON built as text (so
 * that duplicate keys, huge numbers, escapes and broken syntax are all reachable), valid bodies with
 * a few byte-level mutations, and arbitrary text.
 */
final class FuzzInputs {
    private FuzzInputs() {}

    static final List<String> CREATE_FIELDS = List.of(
            "endpoint",
            "delay",
            "fire_at",
            "rrule",
            "cron",
            "timezone",
            "dtstart",
            "exdates",
            "until",
            "count",
            "catch_up",
            "payload",
            "body",
            "content_type",
            "headers",
            "event_type",
            "idempotency_key",
            "dedup_id",
            "retry",
            "timeout",
            "auto_pause_after",
            "header_profile",
            "metadata");

    static String quote(String s) {
        StringBuilder b = new StringBuilder("\"");
        for (char c : s.toCharArray()) {
            switch (c) {
                case '"' -> b.append("\\\"");
                case '\\' -> b.append("\\\\");
                default -> {
                    if (c < 0x20) b.append(String.format("\\u%04x", (int) c));
                    else b.append(c);
                }
            }
        }
        return b.append('"').toString();
    }

    private static Arbitrary<String> quoted(String... values) {
        List<String> q = new ArrayList<>();
        for (String v : values) q.add(quote(v));
        return Arbitraries.of(q);
    }

    /** Any JSON value, nested up to {@code depth}, with the awkward ones well represented. */
    static Arbitrary<String> jsonValue(int depth) {
        Arbitrary<String> leaves = Arbitraries.frequencyOf(
                Tuple.of(
                        3,
                        Arbitraries.of(
                                "null",
                                "true",
                                "false",
                                "0",
                                "-0",
                                "-1",
                                "1.5",
                                "1e400",
                                "-1e-400",
                                "2147483648",
                                "-2147483649",
                                "9223372036854775808",
                                "123456789012345678901234567890",
                                "0.0000001",
                                "\"\"",
                                "\" \"",
                                "\"\\u0000\"",
                                "\"\\ud800\"",
                                "\"\\udc00x\"",
                                "\"\\n\"",
                                "\"\\r\\n\"",
                                "\"\\\"\"",
                                "\"null\"",
                                "\"0\"",
                                "\"-1\"",
                                "\"\u00e9\u4e2d\uD83D\uDE00\"")),
                Tuple.of(2, Arbitraries.integers().map(String::valueOf)),
                Tuple.of(3, Arbitraries.strings().ofMaxLength(40).map(FuzzInputs::quote)),
                Tuple.of(
                        1,
                        Arbitraries.strings()
                                .withCharRange(' ', '~')
                                .ofMinLength(200)
                                .ofMaxLength(3000)
                                .map(FuzzInputs::quote)));
        if (depth <= 0) return leaves;
        Arbitrary<String> inner = Arbitraries.lazy(() -> jsonValue(depth - 1));
        Arbitrary<String> array = inner.list().ofMaxSize(4).map(l -> "[" + String.join(",", l) + "]");
        Arbitrary<String> object = Combinators.combine(
                        Arbitraries.strings().ofMaxLength(12).map(FuzzInputs::quote), inner)
                .as((k, v) -> k + ":" + v)
                .list()
                .ofMaxSize(4)
                .map(l -> "{" + String.join(",", l) + "}");
        return Arbitraries.frequencyOf(Tuple.of(5, leaves), Tuple.of(1, array), Tuple.of(2, object));
    }

    /** A duration-like string: valid ones, bounds, and near misses. */
    private static Arbitrary<String> durations() {
        return Arbitraries.oneOf(
                quoted(
                        "90s",
                        "0s",
                        "0ms",
                        "1ms",
                        "999ms",
                        "1s",
                        "60s",
                        "61s",
                        "5m",
                        "24h",
                        "7d",
                        "30d",
                        "31d",
                        "3650d",
                        "3651d",
                        "PT1H",
                        "PT0S",
                        "P1D",
                        "PT-1S",
                        "pt5s",
                        "P1Y",
                        "PT999999999999H",
                        "999999999d",
                        "1000000000d",
                        "1.5s",
                        "-5s",
                        " 5s",
                        "5 s",
                        "5S",
                        "s",
                        "",
                        "1h30m"),
                Combinators.combine(
                                Arbitraries.longs().between(0, 99_999_999_999L),
                                Arbitraries.of("ms", "s", "m", "h", "d", "", "w"))
                        .as((n, u) -> quote(n + u)));
    }

    private static Arbitrary<String> instants() {
        return quoted(
                "2035-01-01T00:00:00Z",
                "2020-01-01T00:00:00Z",
                "2035-01-01T10:00:00+02:00",
                "2035-01-01T00:00:00",
                "2035-02-30T00:00:00Z",
                "0000-01-01T00:00:00Z",
                "-999999999-01-01T00:00:00Z",
                "+999999999-12-31T23:59:59Z",
                "9999-12-31T23:59:59.999999999Z",
                "2035-01-01T00:00:00.123456789+14:00",
                "2035-01-01T00:00:00-18:00",
                "2035-01-01T24:00:00Z",
                "2035-01-01",
                "now",
                "");
    }

    private static Arbitrary<String> locals() {
        return quoted(
                "2035-01-01T09:00:00",
                "2026-03-29T02:30:00",
                "2026-10-25T02:30:00",
                "2035-02-30T00:00:00",
                "0000-01-01T00:00:00",
                "+999999999-12-31T23:59:59",
                "-999999999-01-01T00:00:00",
                "2035-01-01T09:00",
                "2035-01-01T09:00:00.5",
                "2035-01-01T09:00:00Z",
                "2035-01-01",
                "1997-09-02T09:00:00",
                "");
    }

    static Arbitrary<String> rrules() {
        Arbitrary<String> part = Arbitraries.oneOf(
                Arbitraries.of(
                        "FREQ=SECONDLY",
                        "FREQ=MINUTELY",
                        "FREQ=HOURLY",
                        "FREQ=DAILY",
                        "FREQ=WEEKLY",
                        "FREQ=MONTHLY",
                        "FREQ=YEARLY",
                        "FREQ=NEVER",
                        "WKST=SU",
                        "WKST=XX",
                        "BYDAY=MO,TU",
                        "BYDAY=+2MO",
                        "BYDAY=-1FR",
                        "BYDAY=53MO",
                        "BYDAY=0MO",
                        "BYSETPOS=-1",
                        "BYSETPOS=0",
                        "BYSETPOS=367",
                        "UNTIL=20300101T000000Z",
                        "UNTIL=19700101",
                        "UNTIL=garbage",
                        "COUNT=0",
                        "COUNT=-1",
                        "COUNT=99999999999",
                        "INTERVAL=0",
                        "INTERVAL=2",
                        "INTERVAL=99999999",
                        "BYWEEKNO=53",
                        "BYWEEKNO=-53",
                        "BYWEEKNO=54",
                        "BYYEARDAY=366",
                        "BYYEARDAY=-366",
                        "BYYEARDAY=0",
                        "BYMONTHDAY=31",
                        "BYMONTHDAY=30",
                        "BYMONTHDAY=-31",
                        "BYMONTHDAY=32",
                        "BYMONTH=2",
                        "BYMONTH=13",
                        "BYHOUR=25",
                        "BYHOUR=1",
                        "BYMINUTE=60",
                        "BYSECOND=60",
                        "BYSECOND=61",
                        "RSCALE=GREGORIAN",
                        "X-FOO=1",
                        "",
                        "=",
                        ";"),
                Combinators.combine(
                                Arbitraries.of(
                                        "BYMONTHDAY",
                                        "BYYEARDAY",
                                        "BYWEEKNO",
                                        "BYHOUR",
                                        "BYMINUTE",
                                        "BYSECOND",
                                        "BYSETPOS",
                                        "COUNT",
                                        "INTERVAL",
                                        "BYMONTH"),
                                Arbitraries.integers().between(-400, 400))
                        .as((k, v) -> k + "=" + v));
        return part.list().ofMinSize(1).ofMaxSize(6).map(l -> String.join(";", l));
    }

    static Arbitrary<String> crons() {
        Arbitrary<String> field = Arbitraries.of(
                "*", "*/5", "0", "59", "60", "1-5", "5-1", "MON-FRI", "FRI-SUN", "SUN", "7", "L", "5L", "LW", "W",
                "15W", "MON#2", "MON#6", "?", "1,2,3", "*/0", "-1", "JAN", "DEC-JAN", "31", "32", "0/15", "a", "");
        return Arbitraries.oneOf(
                field.list().ofMinSize(1).ofMaxSize(7).map(l -> String.join(" ", l)),
                Arbitraries.of(
                        "@daily",
                        "@hourly",
                        "@yearly",
                        "@reboot",
                        "@every 5s",
                        "0 0 31 2 *",
                        "0 0 30 2 *",
                        "* * * * * *",
                        "59 59 23 31 12 ? 2099"));
    }

    static Arbitrary<String> fieldValue(String field, Arbitrary<String> safeEndpoint) {
        Arbitrary<String> specific = switch (field) {
            case "endpoint" ->
                Arbitraries.frequencyOf(
                        Tuple.of(8, safeEndpoint),
                        Tuple.of(
                                1,
                                quoted(
                                        "ftp://127.0.0.1/",
                                        "http://",
                                        "http:///x",
                                        "",
                                        "not a url",
                                        "http://127.0.0.1:99999/",
                                        "http://[::1",
                                        "http://user@127.0.0.1/",
                                        "javascript:alert(1)",
                                        "http://127.0.0.1/\u0000",
                                        "http://127.0.0.1/ x",
                                        "HTTP://127.0.0.1/",
                                        "http://127.0.0.1:0/",
                                        "http://127.0.0.1/" + "a".repeat(3000))));
            case "delay", "timeout" -> durations();
            case "fire_at" -> instants();
            case "rrule" -> rrules().map(FuzzInputs::quote);
            case "cron" -> crons().map(FuzzInputs::quote);
            case "timezone" ->
                quoted(
                        "UTC",
                        "Europe/Paris",
                        "America/New_York",
                        "Pacific/Apia",
                        "Mars/Olympus",
                        "+05:00",
                        "GMT+1",
                        "Z",
                        "Etc/GMT-14",
                        "SystemV/AST4",
                        "EST",
                        "europe/paris",
                        "",
                        "UTC\u0000");
            case "dtstart" -> locals();
            case "exdates" ->
                Arbitraries.oneOf(
                        locals().list().ofMaxSize(4).map(l -> "[" + String.join(",", l) + "]"),
                        quoted("2035-01-02T09:00:00,2035-01-03T09:00:00", ",", "x,y"));
            case "until" -> Arbitraries.oneOf(instants(), locals());
            case "count", "auto_pause_after" ->
                Arbitraries.oneOf(
                        Arbitraries.of(
                                "0",
                                "1",
                                "-1",
                                "5",
                                "10000",
                                "10001",
                                "1000000",
                                "1000001",
                                "2147483647",
                                "2147483648",
                                "1.0",
                                "1e3",
                                "\"5\""),
                        Arbitraries.integers().map(String::valueOf));
            case "catch_up" -> quoted("latest", "all", "none", "LATEST", "some", "");
            case "payload" -> jsonValue(3);
            case "body" ->
                Arbitraries.oneOf(
                        quoted("hello", "", "<xml/>"),
                        Arbitraries.strings().ofMaxLength(100).map(FuzzInputs::quote));
            case "content_type" ->
                quoted("text/plain", "application/xml; charset=utf-8", "", "a\r\nX-Injected: 1", "x".repeat(300));
            case "headers" ->
                Combinators.combine(
                                Arbitraries.oneOf(
                                                Arbitraries.of(
                                                        "X-Team",
                                                        "x-a",
                                                        "webhook-id",
                                                        "Idempotency-Key",
                                                        "Idem-Attempt",
                                                        "Content-Type",
                                                        "User-Agent",
                                                        "Host",
                                                        "Connection",
                                                        "Transfer-Encoding",
                                                        "X-RRule-Schedule-Id",
                                                        "Sched-Signature",
                                                        "Bad Header",
                                                        "",
                                                        "X:Y",
                                                        "\u00e9"),
                                                Arbitraries.strings().ofMaxLength(20))
                                        .map(FuzzInputs::quote),
                                Arbitraries.oneOf(
                                        quoted("v", "", "a\r\nb", "a\u0000b", "x".repeat(9000)), jsonValue(0)))
                        .as((k, v) -> k + ":" + v)
                        .list()
                        .ofMaxSize(5)
                        .map(l -> "{" + String.join(",", l) + "}");
            case "event_type" -> quoted("invoice.reminder", "a/b:c-d_e", "has space", "", "é", "x".repeat(256));
            case "idempotency_key", "dedup_id" ->
                Arbitraries.oneOf(
                        quoted("k", "", "x".repeat(256)),
                        Arbitraries.strings().ofMinLength(1).ofMaxLength(30).map(FuzzInputs::quote));
            case "retry" ->
                Combinators.combine(
                                Arbitraries.of("max_attempts", "initial_backoff", "max_backoff", "max_age", "tries")
                                        .map(FuzzInputs::quote),
                                Arbitraries.oneOf(durations(), Arbitraries.of("0", "1", "100", "101", "-1", "null")))
                        .as((k, v) -> k + ":" + v)
                        .list()
                        .ofMaxSize(4)
                        .map(l -> "{" + String.join(",", l) + "}");
            case "header_profile" -> quoted("standard", "rrule", "schedstack", "svix", "STANDARD", "");
            case "metadata" ->
                Arbitraries.oneOf(
                        jsonValue(3),
                        Arbitraries.strings()
                                .withCharRange('a', 'z')
                                .ofLength(17_000)
                                .map(s -> "{\"big\":" + quote(s) + "}"));
            default -> jsonValue(1);
        };
        return Arbitraries.frequencyOf(Tuple.of(9, specific), Tuple.of(1, jsonValue(2)));
    }

    /** A JSON object with a random subset of {@code fields} (plus, now and then, an unknown or repeated one), in random order. */
    static Arbitrary<String> structured(List<String> fields, Arbitrary<String> safeEndpoint, int presentPercent) {
        List<Arbitrary<String>> members = new ArrayList<>();
        for (String f : fields)
            members.add(Arbitraries.integers()
                    .between(1, 100)
                    .flatMap(p -> p > presentPercent
                            ? Arbitraries.just("")
                            : fieldValue(f, safeEndpoint).map(v -> quote(f) + ":" + v)));
        members.add(Arbitraries.frequencyOf(
                Tuple.of(12, Arbitraries.just("")),
                Tuple.of(1, jsonValue(1).map(v -> "\"colour\":" + v)),
                Tuple.of(1, jsonValue(0).map(v -> "\"endpoint\":" + v)),
                Tuple.of(1, jsonValue(0).map(v -> "\"\":" + v)),
                Tuple.of(1, jsonValue(0).map(v -> "\"Endpoint\":" + v))));
        return Combinators.combine(members)
                .as(l -> l.stream().filter(s -> !s.isEmpty()).toList())
                .flatMap(l -> Arbitraries.randoms().map(r -> {
                    List<String> shuffled = new ArrayList<>(l);
                    Collections.shuffle(shuffled, r);
                    return "{" + String.join(",", shuffled) + "}";
                }));
    }

    /**
     * A valid endpoint and one to three other fields, each with a value made for that field (valid, at a
     * bound, or a near miss): each field's own validation, with little else in the way.
     */
    static Arbitrary<String> focused(List<String> fields, Arbitrary<String> safeEndpoint) {
        Arbitrary<String> member = Arbitraries.of(fields)
                .filter(f -> !f.equals("endpoint"))
                .flatMap(f -> fieldValue(f, safeEndpoint).map(v -> quote(f) + ":" + v));
        return Combinators.combine(
                        safeEndpoint,
                        member.list().ofMinSize(1).ofMaxSize(2).uniqueElements(m -> m.substring(0, m.indexOf("\":"))))
                .as((e, l) -> "{\"endpoint\":" + e + "," + String.join(",", l) + "}");
    }

    /** RRULEs that make sense (valid parts only), so that the preview's happy path is fuzzed too. */
    static Arbitrary<String> sensibleRrules() {
        Arbitrary<String> freq = Arbitraries.of(
                "FREQ=MINUTELY", "FREQ=HOURLY", "FREQ=DAILY", "FREQ=WEEKLY", "FREQ=MONTHLY", "FREQ=YEARLY");
        Arbitrary<String> part = Arbitraries.oneOf(
                Arbitraries.integers().between(1, 12).map(n -> "BYMONTH=" + n),
                Arbitraries.integers().between(-31, 31).filter(n -> n != 0).map(n -> "BYMONTHDAY=" + n),
                Arbitraries.of("MO", "TU", "WE", "TH", "FR", "SA", "SU", "+1MO", "-1FR", "2TU")
                        .list()
                        .ofMinSize(1)
                        .ofMaxSize(3)
                        .uniqueElements()
                        .map(l -> "BYDAY=" + String.join(",", l)),
                Arbitraries.integers().between(0, 23).map(n -> "BYHOUR=" + n),
                Arbitraries.integers().between(0, 59).map(n -> "BYMINUTE=" + n),
                Arbitraries.integers().between(1, 10).map(n -> "INTERVAL=" + n),
                Arbitraries.integers().between(1, 50).map(n -> "COUNT=" + n),
                Arbitraries.integers().between(-3, 3).filter(n -> n != 0).map(n -> "BYSETPOS=" + n),
                Arbitraries.of("WKST=MO", "WKST=SU", "UNTIL=20400101T000000Z"));
        return Combinators.combine(freq, part.list().ofMaxSize(3).uniqueElements(x -> x.substring(0, x.indexOf('='))))
                .as((f, l) -> l.isEmpty() ? f : f + ";" + String.join(";", l));
    }

    /** A few byte-level mutations of one of {@code seeds}: deletions, insertions of JSON-ish tokens, swaps, duplication, truncation. */
    static Arbitrary<String> mutated(Arbitrary<String> seeds) {
        return Combinators.combine(
                        seeds, Arbitraries.randoms(), Arbitraries.integers().between(1, 4))
                .as(FuzzInputs::mutate);
    }

    private static final String[] TOKENS = {
        "{",
        "}",
        "[",
        "]",
        "\"",
        ",",
        ":",
        "null",
        "true",
        "0",
        "-",
        "e9",
        "\\",
        "\\u",
        "\\ud800",
        "\u0000",
        " ",
        "\n",
        "\"endpoint\":",
        "\"delay\":\"1s\"",
        "\"x\":",
        "/*",
        "é",
        "\uD83D\uDE00",
        "9999999999999999999999"
    };

    static String mutate(String seed, Random r, int times) {
        StringBuilder s = new StringBuilder(seed);
        for (int i = 0; i < times; i++) {
            int at = s.length() == 0 ? 0 : r.nextInt(s.length() + 1);
            switch (r.nextInt(6)) {
                case 0 -> { // delete a range
                    int end = Math.min(s.length(), at + 1 + r.nextInt(8));
                    if (at < end) s.delete(at, end);
                }
                case 1 -> s.insert(at, TOKENS[r.nextInt(TOKENS.length)]);
                case 2 -> { // replace one character
                    if (at < s.length()) s.setCharAt(at, (char) (r.nextBoolean() ? r.nextInt(128) : r.nextInt(0xD800)));
                }
                case 3 -> { // duplicate a range
                    int end = Math.min(s.length(), at + 1 + r.nextInt(30));
                    if (at < end) s.insert(end, s.substring(at, end));
                }
                case 4 -> s.setLength(Math.min(s.length(), at)); // truncate
                default -> { // swap two characters
                    int other = s.length() == 0 ? 0 : r.nextInt(s.length());
                    if (at < s.length() && other < s.length()) {
                        char c = s.charAt(at);
                        s.setCharAt(at, s.charAt(other));
                        s.setCharAt(other, c);
                    }
                }
            }
        }
        return s.toString();
    }

    /** Arbitrary text, JSON or not. */
    static Arbitrary<String> raw() {
        return Arbitraries.oneOf(
                Arbitraries.strings().ofMaxLength(200),
                Arbitraries.of(
                        "",
                        " ",
                        "null",
                        "[]",
                        "[{}]",
                        "\"x\"",
                        "1",
                        "{",
                        "}",
                        "{}{}",
                        "{} x",
                        "{\"a\":1}}",
                        "\uFEFF{}",
                        "{\"endpoint\":\"http://127.0.0.1/\"} ",
                        "{'endpoint':'x'}",
                        "{endpoint:1}",
                        "{\"endpoint\":\"http://127.0.0.1/\",}",
                        "{\"endpoint\":NaN}",
                        "{\"endpoint\":\"http://127.0.0.1/\"/*c*/}",
                        "[".repeat(5000),
                        "{\"a\":".repeat(3000)));
    }

    /** A query string of list parameters (known and unknown), percent-encoded. */
    static Arbitrary<String> listQuery(List<String> names) {
        Arbitrary<String> name = Arbitraries.frequencyOf(
                Tuple.of(6, Arbitraries.of(names)),
                Tuple.of(1, Arbitraries.strings().ofMaxLength(10)));
        Arbitrary<String> value = Arbitraries.oneOf(
                Arbitraries.of(
                        "",
                        "0",
                        "1",
                        "10",
                        "100",
                        "101",
                        "-1",
                        "2147483648",
                        "1e2",
                        " 5",
                        "active",
                        "paused",
                        "completed",
                        "deleted",
                        "scheduled",
                        "delivering",
                        "retrying",
                        "succeeded",
                        "dead",
                        "cancelled",
                        "ACTIVE",
                        "sch_",
                        "dlv_",
                        "sch_01h00000000000000000000000",
                        "dlv_01h00000000000000000000000",
                        "' OR 1=1 --",
                        "%",
                        "\u0000",
                        "é"),
                Arbitraries.strings().ofMaxLength(30));
        return Combinators.combine(name, value)
                .as((n, v) -> enc(n) + "=" + enc(v))
                .list()
                .ofMaxSize(5)
                .map(l -> String.join("&", l));
    }

    static String enc(String s) {
        return java.net.URLEncoder.encode(s, java.nio.charset.StandardCharsets.UTF_8);
    }
}
