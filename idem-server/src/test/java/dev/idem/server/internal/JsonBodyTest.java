package dev.idem.server.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.nio.charset.StandardCharsets;
import java.util.List;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.Example;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.Tuple;

/** The request body reader: a payload's exact text is kept; strings no store can hold are refused, naming the field. */
class JsonBodyTest {
    static ObjectNode parse(String json) {
        return JsonBody.parse(json.getBytes(StandardCharsets.UTF_8));
    }

    /** JSON text as a person or a serialiser might write it: any spacing, number spelling, escapes, key order. */
    static Arbitrary<String> jsonText(int depth) {
        Arbitrary<String> ws = Arbitraries.of("", " ", "  ", "\n", "\t", "\r\n  ");
        Arbitrary<String> leaves = Arbitraries.oneOf(
                Arbitraries.of(
                        "null",
                        "true",
                        "false",
                        "0",
                        "-0",
                        "1.0",
                        "100.0",
                        "1e5",
                        "1E+5",
                        "-1.50e-3",
                        "0.10",
                        "12345678901234567890123",
                        "-9223372036854775809",
                        "3.141592653589793238462643383279",
                        "1e400"),
                Arbitraries.integers().map(String::valueOf),
                Arbitraries.of(
                        "\"\"",
                        "\"a\"",
                        "\"\\u00e9\"",
                        "\"\\uD83D\\uDE00\"",
                        "\"\u00e9\u4e2d\uD83D\uDE00\"",
                        "\"\\\"\\\\\\/\\b\\f\\n\\r\\t\"",
                        "\"payload\"",
                        "\"}\"",
                        "\"]\"",
                        "\",\""));
        if (depth <= 0) return leaves;
        Arbitrary<String> inner = Arbitraries.lazy(() -> jsonText(depth - 1));
        Arbitrary<String> member = Combinators.combine(
                        ws,
                        Arbitraries.of("\"a\"", "\"b\"", "\"payload\"", "\"\\u0063\"", "\"z\u00e9\""),
                        ws,
                        ws,
                        inner,
                        ws)
                .as((w1, k, w2, w3, v, w4) -> w1 + k + w2 + ":" + w3 + v + w4);
        Arbitrary<String> object = member.list()
                .ofMaxSize(4)
                .uniqueElements(m -> m.substring(0, m.indexOf(':')).strip())
                .flatMap(l -> ws.map(w -> "{" + (l.isEmpty() ? w : String.join(",", l)) + "}"));
        Arbitrary<String> array = Combinators.combine(ws, inner, ws)
                .as((a, v, b) -> a + v + b)
                .list()
                .ofMaxSize(4)
                .flatMap(l -> ws.map(w -> "[" + (l.isEmpty() ? w : String.join(",", l)) + "]"));
        return Arbitraries.frequencyOf(Tuple.of(4, leaves), Tuple.of(2, object), Tuple.of(2, array));
    }

    @Provide
    Arbitrary<String> payloads() {
        return jsonText(3);
    }

    @Property(tries = 1500)
    void aPayloadIsKeptAsTheExactTextSent(
            @ForAll("payloads") String payload,
            @ForAll("spaces") String before,
            @ForAll("spaces") String after,
            @ForAll boolean first) {
        String member = "\"payload\"" + before + ":" + before + payload + after;
        String body = first ? "{" + after + member + ",\"endpoint\" : \"x\"}" : "{\"endpoint\":\"x\" ," + member + "}";
        ObjectNode o = parse(body);
        assertThat(JsonBody.text(o.get("payload"))).isEqualTo(payload);
        // and the tree written back out carries the same bytes
        assertThat(Json.compact(o)).contains(payload);
    }

    @Provide
    Arbitrary<String> spaces() {
        return Arbitraries.of("", " ", "\n\t ");
    }

    @Property(tries = 300)
    void everyPayloadOfABatchKeepsItsOwnText(@ForAll("payloads") String a, @ForAll("payloads") String b) {
        ObjectNode o = parse("{\"items\": [{\"payload\":" + a + "}, {\"x\": 1, \"payload\" :" + b + " }]}");
        assertThat(JsonBody.text(o.get("items").get(0).get("payload"))).isEqualTo(a);
        assertThat(JsonBody.text(o.get("items").get(1).get("payload"))).isEqualTo(b);
    }

    @Example
    void numbersKeyOrderAndEscapesSurvive() {
        String payload =
                "{\"b\": 1, \"a\": [1.0, 100.0, 1e2, 12345678901234567890123456789], \"c\": \"caf\\u00e9 \\ud83d\\ude00\"}";
        assertThat(JsonBody.text(parse("{\"payload\":" + payload + "}").get("payload")))
                .isEqualTo(payload);
    }

    @Example
    void aPayloadInsideAPayloadStaysPartOfItsText() {
        String payload = "{\"payload\": {\"n\": 1.0}}";
        assertThat(JsonBody.text(parse("{\"payload\":" + payload + "}").get("payload")))
                .isEqualTo(payload);
    }

    @Example
    void aNullPayloadIsNull() {
        assertThat(parse("{\"payload\": null}").get("payload").isNull()).isTrue();
    }

    @Example
    void aByteOrderMarkIsIgnored() {
        ObjectNode o = JsonBody.parse(("\uFEFF{\"payload\": [1.0]}").getBytes(StandardCharsets.UTF_8));
        assertThat(JsonBody.text(o.get("payload"))).isEqualTo("[1.0]");
    }

    @Example
    void bytesThatAreNotUtf8AreInvalidJson() {
        byte[] latin1 = "{\"dedup_id\": \"caf\u00e9\"}".getBytes(StandardCharsets.ISO_8859_1);
        assertThatThrownBy(() -> JsonBody.parse(latin1))
                .isInstanceOfSatisfying(
                        ApiException.class, e -> assertThat(e.code()).isEqualTo("invalid_json"));
        // an encoded surrogate (CESU-8) is not UTF-8 either
        byte[] cesu = {'{', '"', 'a', '"', ':', '"', (byte) 0xED, (byte) 0xA0, (byte) 0x80, '"', '}'};
        assertThatThrownBy(() -> JsonBody.parse(cesu))
                .isInstanceOfSatisfying(
                        ApiException.class, e -> assertThat(e.code()).isEqualTo("invalid_json"));
    }

    @Example
    void strictnessIsKept() {
        for (String bad : List.of(
                "{\"a\":1,\"a\":2}", "{} {}", "[1]", "{\"a\":", "\"x\"", "{\"payload\": [1,}", "{\"payload\": 01}"))
            assertThatThrownBy(() -> parse(bad))
                    .as(bad)
                    .isInstanceOfSatisfying(
                            ApiException.class, e -> assertThat(e.code()).isEqualTo("invalid_json"));
        assertThat(parse("").size()).isZero();
        assertThat(parse("  ").size()).isZero();
    }

    @Property(tries = 300)
    void aStringNoStoreCanHoldIsRefusedNamingItsPlace(
            @ForAll("unstorable") String escape, @ForAll("places") Tuple.Tuple2<String, String> place) {
        String body = place.get1().replace("%S", "\"ok" + escape + "ok\"");
        assertThatThrownBy(() -> parse(body)).as(body).isInstanceOfSatisfying(ApiException.class, e -> {
            assertThat(e.code()).isEqualTo("parameter_invalid_characters");
            // a bad key is named with U+FFFD in place of what cannot be shown
            assertThat(e.param()).matches(place.get2());
            assertThat(e.getMessage()).startsWith(e.param() + " contains ");
        });
    }

    @Provide
    Arbitrary<String> unstorable() {
        return Arbitraries.of(
                "\\u0000", "\\ud800", "\\udbff", "\\udc00", "\\udfff", "\\udc00\\ud800", "\\ud800\\ud800\\udc00");
    }

    @Provide
    Arbitrary<Tuple.Tuple2<String, String>> places() {
        return Arbitraries.of(
                Tuple.of("{\"dedup_id\": %S}", "dedup_id"),
                Tuple.of("{\"retry\": {\"max_age\": %S}}", "retry\\.max_age"),
                Tuple.of("{\"headers\": {\"X-A\": %S}}", "headers\\.X-A"),
                Tuple.of("{\"exdates\": [\"2035-01-01T00:00:00\", %S]}", "exdates\\[1\\]"),
                Tuple.of("{\"payload\": {\"a\": [1, {\"b\": %S}]}}", "payload\\.a\\[1\\]\\.b"),
                Tuple.of("{\"metadata\": {%S: 1}}", "metadata\\.ok.*\uFFFD.*ok"));
    }

    @Example
    void pairedSurrogatesAreText() {
        JsonNode o = parse("{\"dedup_id\": \"\\ud83d\\ude00\", \"payload\": \"\uD83D\uDE00\"}");
        assertThat(o.get("dedup_id").asText()).isEqualTo("\uD83D\uDE00");
    }
}
