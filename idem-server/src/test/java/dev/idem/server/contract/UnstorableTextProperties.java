package dev.idem.server.contract;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idem.server.ApiClientForTests;
import dev.idem.store.testing.TestDatabase;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.lifecycle.AfterContainer;
import net.jqwik.api.lifecycle.BeforeProperty;

/**
 * Issue 18.4 as a property: whichever string of a create or a PATCH body carries a U+0000 or an unpaired
 * surrogate, wherever in it, the answer is 400 {@code parameter_invalid_characters} naming that field, and
 * nothing is written, on SQLite and on PostgreSQL alike. The same bodies without the bad character are
 * accepted (201), so the character is what is refused.
 */
abstract class UnstorableTextProperties {
    static final String KEY = ContractServer.TEST_KEY;
    static final String FAR = "\"fire_at\":\"2035-01-01T00:00:00Z\"";
    /** One running node per property class (jqwik runs the classes one after the other). */
    private static final Map<Class<?>, Object[]> NODES = new HashMap<>();

    ContractServer node;
    StoreRows rows;

    abstract TestDatabase database(Path dir);

    @BeforeProperty
    void node() throws IOException {
        synchronized (NODES) {
            Object[] n = NODES.get(getClass());
            if (n == null) {
                Path dir = Files.createTempDirectory("idem-unstorable");
                TestDatabase db = database(dir);
                n = new Object[] {ContractServer.start(db.open(Clock.systemUTC()), dir, true, true, 0), db};
                NODES.put(getClass(), n);
            }
            node = (ContractServer) n[0];
            rows = new StoreRows(((TestDatabase) n[1]).config());
        }
    }

    @AfterContainer
    static void stopNodes() {
        synchronized (NODES) {
            for (Object[] n : NODES.values()) {
                ((ContractServer) n[0]).close();
                ((TestDatabase) n[1]).close();
            }
            NODES.clear();
        }
    }

    /**
     * A string of a body: {@code member} is a JSON object member with {@code %S} where the string goes, {@code others}
     * the members that make the body valid around it, {@code good} a value the server accepts there, {@code param} the
     * name the error must give ({@code null} for a key, whose name holds the bad character itself).
     */
    record Slot(String param, String member, String others, String good) {}

    static final String ENDPOINT = "http://127.0.0.1:9/x";
    static final String RULE = "\"rrule\":\"FREQ=DAILY;COUNT=3\",\"dtstart\":\"2035-01-01T09:00:00\"";
    static final List<Slot> SLOTS = List.of(
            new Slot("endpoint", "\"endpoint\":%S", FAR, ENDPOINT),
            new Slot("delay", "\"delay\":%S", "", "90s"),
            new Slot("fire_at", "\"fire_at\":%S", "", "2035-01-01T00:00:00Z"),
            new Slot("rrule", "\"rrule\":%S", "\"dtstart\":\"2035-01-01T09:00:00\"", "FREQ=DAILY"),
            new Slot("cron", "\"cron\":%S", "", "0 9 * * MON-FRI"),
            new Slot("timezone", "\"timezone\":%S", RULE, "Europe/Paris"),
            new Slot("dtstart", "\"dtstart\":%S", "\"rrule\":\"FREQ=DAILY\"", "2035-01-01T09:00:00"),
            new Slot("exdates[1]", "\"exdates\":[\"2035-01-02T09:00:00\",%S]", RULE, "2035-01-03T09:00:00"),
            new Slot("exdates", "\"exdates\":%S", RULE, "2035-01-02T09:00:00,2035-01-03T09:00:00"),
            new Slot(
                    "until",
                    "\"until\":%S",
                    "\"rrule\":\"FREQ=DAILY\",\"dtstart\":\"2035-01-01T09:00:00\"",
                    "2036-01-01T00:00:00Z"),
            new Slot("catch_up", "\"catch_up\":%S", RULE, "all"),
            new Slot("body", "\"body\":%S", FAR, "hello, world"),
            new Slot("content_type", "\"content_type\":%S", FAR + ",\"body\":\"x\"", "text/plain; charset=utf-8"),
            new Slot("headers.X-A", "\"headers\":{\"X-A\":%S}", FAR, "a value"),
            new Slot(null, "\"headers\":{%S:\"v\"}", FAR, "X-Name"),
            new Slot("event_type", "\"event_type\":%S", FAR, "invoice.reminder"),
            new Slot("idempotency_key", "\"idempotency_key\":%S", FAR, "order-7"),
            new Slot("dedup_id", "\"dedup_id\":%S", FAR, "d"),
            new Slot("retry.initial_backoff", "\"retry\":{\"initial_backoff\":%S}", FAR, "5s"),
            new Slot("retry.max_backoff", "\"retry\":{\"max_backoff\":%S}", FAR, "1h"),
            new Slot("retry.max_age", "\"retry\":{\"max_age\":%S}", FAR, "24h"),
            new Slot("timeout", "\"timeout\":%S", FAR, "10s"),
            new Slot("header_profile", "\"header_profile\":%S", FAR, "rrule"),
            new Slot("payload", "\"payload\":%S", FAR, "a JSON string"),
            new Slot("payload.list[1].s", "\"payload\":{\"list\":[1,{\"s\":%S}]}", FAR, "nested"),
            new Slot(null, "\"payload\":{%S:1}", FAR, "key"),
            new Slot("metadata.m", "\"metadata\":{\"m\":%S}", FAR, "kept"),
            new Slot(null, "\"metadata\":{%S:true}", FAR, "key"));

    /** A JSON string literal with everything outside printable ASCII escaped, so lone surrogates can travel. */
    static String literal(String s) {
        StringBuilder b = new StringBuilder("\"");
        for (char c : s.toCharArray()) {
            if (c == '"' || c == '\\') b.append('\\').append(c);
            else if (c < 0x20 || c > 0x7e) b.append(String.format("\\u%04x", (int) c));
            else b.append(c);
        }
        return b.append('"').toString();
    }

    static String body(Slot slot, String value) {
        String member = slot.member().replace("%S", literal(value));
        String endpoint = slot.member().startsWith("\"endpoint\"") ? "" : "\"endpoint\":\"" + ENDPOINT + "\",";
        String others = slot.others().isEmpty() ? "" : "," + slot.others();
        return "{" + endpoint + member + others + "}";
    }

    record Case(Slot slot, String value) {}

    @Provide
    Arbitrary<Case> badStrings() {
        Arbitrary<String> bad = Arbitraries.of(
                "\u0000", "\uD800", "\uDBFF", "\uDC00", "\uDFFF", "\uDC00\uD800", "\uD800\u0000", "\u0000\u0000");
        return Combinators.combine(
                        Arbitraries.of(SLOTS), bad, Arbitraries.integers().between(0, 1000))
                .as((slot, b, at) -> {
                    int i = at % (slot.good().length() + 1);
                    return new Case(
                            slot, slot.good().substring(0, i) + b + slot.good().substring(i));
                });
    }

    void assertRefused(ApiClientForTests.Reply r, Case c, String sent) {
        assertThat(r.status()).as("%s -> %s", sent, r.raw()).isEqualTo(400);
        assertThat(r.json().at("/error/code").asText())
                .as("%s -> %s", sent, r.raw())
                .isEqualTo("parameter_invalid_characters");
        if (c.slot().param() != null)
            assertThat(r.json().at("/error/param").asText()).isEqualTo(c.slot().param());
        else assertThat(r.json().at("/error/param").asText()).contains("\uFFFD");
    }

    @Property(tries = 120)
    void anUnstorableCharacterInAnyStringOfACreateIsA400NamingItAndWritesNothing(@ForAll("badStrings") Case c) {
        String good = body(c.slot(), c.slot().good());
        // (a fresh dedup_id each time, so the accepted body is never answered by an earlier schedule)
        var accepted =
                node.api.call("POST", "/v1/schedules", KEY, good.replace("\"d\"", literal("d-" + UUID.randomUUID())));
        assertThat(accepted.status())
                .as("the body without the bad character is accepted: %s -> %s", good, accepted.raw())
                .isEqualTo(201);
        node.api.call("DELETE", "/v1/schedules/" + accepted.json().get("id").asText(), KEY, null);

        var before = rows.counts();
        String sent = body(c.slot(), c.value());
        assertRefused(
                node.api.call("POST", "/v1/schedules", KEY, sent, Map.of("Idempotency-Key", "k-" + UUID.randomUUID())),
                c,
                sent);
        assertThat(rows.counts()).as("nothing written for %s", sent).isEqualTo(before);
    }

    @Property(tries = 120)
    void anUnstorableCharacterInAnyStringOfAPatchIsA400NamingItAndChangesNothing(@ForAll("badStrings") Case c) {
        String base = c.slot().others().contains("rrule")
                        || c.slot().member().contains("rrule")
                        || c.slot().member().contains("dtstart")
                ? "{\"endpoint\":\"" + ENDPOINT + "\"," + RULE + "}"
                : c.slot().member().contains("cron")
                        ? "{\"endpoint\":\"" + ENDPOINT + "\",\"cron\":\"0 0 1 1 *\"}"
                        : "{\"endpoint\":\"" + ENDPOINT + "\"," + FAR + "}";
        var created = node.api.call("POST", "/v1/schedules", KEY, base);
        assertThat(created.status()).as(created.raw()).isEqualTo(201);
        String id = created.json().get("id").asText();
        var before = rows.counts();
        String sent = "{" + c.slot().member().replace("%S", literal(c.value())) + "}";
        assertRefused(node.api.call("PATCH", "/v1/schedules/" + id, KEY, sent), c, sent);
        assertThat(rows.counts()).isEqualTo(before);
        assertThat(node.api.call("GET", "/v1/schedules/" + id, KEY, null).raw()).isEqualTo(created.raw());
        node.api.call("DELETE", "/v1/schedules/" + id, KEY, null);
    }
}
