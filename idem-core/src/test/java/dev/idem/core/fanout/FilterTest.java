package dev.idem.core.fanout;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The filter language against the cases Convoy's {@code pkg/compare} tests and Hookdeck Outpost's
 * {@code simplejsonmatch} tests (ported from simple-json-match) document, rewritten as JSON; single quotes stand for
 * double quotes. A top-level value that is not an object (Outpost matches bare values) is wrapped in {@code $and}.
 * Where Idem differs on purpose the case says so.
 */
class FilterTest {
    private static final ObjectMapper JSON = new ObjectMapper();

    static JsonNode json(String text) {
        try {
            return JSON.readTree(text.replace('\'', '"'));
        } catch (Exception e) {
            throw new IllegalArgumentException(text, e);
        }
    }

    static Arguments c(String payload, String filter, boolean matches) {
        return Arguments.of(payload, filter, matches);
    }

    static Stream<Arguments> convoy() {
        String cities = "{'cities': ['lagos', 'ibadan', 'agodi'], 'type': 'weekly',"
                + " 'temperatures': [30, 12, 39.9, 10], 'person': {'age': 12}}";
        String meetup = "[{'event': 'meetup'}, {'venues': [{'lagos': ['ikeja', 'lekki']},"
                + " {'ibadan': ['bodija', 'dugbe']}]}, {'speakers': [{'name': 'raymond'}, {'name': 'subomi'}]}]";
        String data = "{'data': [{'event': 'meetup'}, {'venue': 'test'}, {'speakers': [{'name': 'raymond'},"
                + " {'name': 'subomi'}]}], 'swag': 'hoodies'}";
        return Stream.of(
                c("{'person': {'age': 5}}", "{'person': {'age': 5}}", true),
                c("{'person': {'age': 5}}", "{'person': {'age': {'$eq': 5}}}", true),
                c("{'person': {'name': 'tunde'}}", "{'person': {'name': {'$eq': 'tunde'}}}", true),
                c("{'person': {'age': 5}}", "{'person': {'age': {'$neq': 5}}}", false),
                c("{'person': {'age': 11}}", "{'person': {'age': {'$neq': 5}}}", true),
                c("{'person': {'age': 11}}", "{'person': {'age': {'$lt': 15}}}", true),
                c("{'person': {'age': 11}}", "{'person': {'age': {'$lt': 5}}}", false),
                c("{'person': {'age': 11}}", "{'person': {'age': {'$gt': 5}}}", true),
                c("{'person': {'age': 11}}", "{'person': {'age': {'$gt': 50}}}", false),
                c("{'person': {'name': 'raymond'}}", "{'person': {'name': {'$in': ['subomi', 'daniel']}}}", false),
                c("{'person': {'name': 'subomi'}}", "{'person': {'name': {'$in': ['subomi', 'daniel']}}}", true),
                c("{'person': {'name': 'raymond'}}", "{'person': {'name': {'$nin': ['subomi', 'daniel']}}}", true),
                c("{'person': {'name': 'subomi'}}", "{'person': {'name': {'$nin': ['subomi', 'daniel']}}}", false),
                c("{'person': {'name': ['subomi', 'daniel']}}", "{'person': {'name': 'subomi'}}", true),
                c("{'person': {'name': ['subomi', 'daniel']}}", "{'person': {'name': 'raymond'}}", false),
                c(cities, "{'$and': [{'person.age': {'$gte': 10}}, {'type': 'weekly'}, {'cities': 'lagos'}]}", true),
                c(cities, "{'$or': [{'type': 'monthly'}, {'cities': 'lagos'}]}", true),
                c(
                        cities,
                        "{'$and': [{'person.age': {'$gte': 10}}, {'$or': [{'type': 'weekly'}, {'cities': 'lagos'}]}]}",
                        true),
                c(cities, "{'person': {'age': {'$exist': true}}}", true),
                c(meetup, "{'$.venues.$.lagos': 'ikeja'}", true),
                c(data, "{'data.$.event': 'meetup', 'data.$.venue': 'test'}", true),
                c(data, "{'data.$.speakers.$.name': 'raymond', 'swag': 'hoodies'}", true),
                c("{}", "{}", true));
    }

    static Stream<Arguments> outpost() {
        return Stream.of(
                c("{'type': 'created'}", "{'type': 'created'}", true),
                c("{}", "{'type': 'created'}", false),
                c("{'type': 'updated'}", "{'type': 'created'}", false),
                c("{'type': 1}", "{'type': 'created'}", false),
                c("{'type': 1}", "{'type': 1}", true),
                c("{'count': 1, 'type': 'created'}", "{'count': 1}", true),
                c("{'count': 1, 'type': 'created'}", "{'count': 1, 'type': 'created'}", true),
                c("{'count': 1}", "{'count': 1, 'type': 'created'}", false),
                c("{'count': 0}", "{'count': {'$lt': 1}}", true),
                c("{'count': 2}", "{'count': {'$lt': 1}}", false),
                c("{'count': 2}", "{'count': {'$eq': 2}}", true),
                c("{'count': 2}", "{'count': {'$neq': 2}}", false),
                c("{'count': 2}", "{'count': {'$gt': 1, '$lt': 3}}", true),
                c("{'count': 4}", "{'count': {'$gt': 1, '$lt': 3}}", false),
                c("{'title': 'a'}", "{'title': {'$gt': 'b'}}", false),
                c("{'title': 'c'}", "{'title': {'$gt': 'b'}}", true),
                c("{'type': 'created'}", "{'type': {'$neq': 'created'}}", false),
                c("{'type': 'created'}", "{'type': {'$eq': 'created'}}", true),
                c("{'type': {'something': 'created'}}", "{'type': {'something': 'created'}}", true),
                c("{'type': {'something': 'created'}}", "{'type': {'something': 'updated'}}", false),
                c("{'type': {'something': 'created'}}", "{'type': 1}", false),
                c("{'tags': ['test', 'other']}", "{'tags': 'test'}", true),
                c("{'tags': ['test', 'other']}", "{'tags': 'nope'}", false),
                c("{'items': [{'sku': 'test'}]}", "{'items': {'sku': 'test'}}", true),
                c("{'items': [{'sku': 'test'}]}", "{'items': {'sku': '1'}}", false),
                c("{'items': [{'inventory': 9}, {'inventory': 11}]}", "{'items': {'inventory': {'$lte': 10}}}", true),
                c("{'items': [{'inventory': 12}, {'inventory': 11}]}", "{'items': {'inventory': {'$lte': 10}}}", false),
                c("{'tags': ['test', 'other', 'more']}", "{'tags': ['test', 'other']}", true),
                c("{'tags': ['test', 'other', 'more']}", "{'tags': ['test', 'whatever']}", false),
                c("{'tags': ['test', 'other']}", "{'tags': {'$eq': ['test', 'other']}}", true),
                c("{'tags': ['test', 'other', 'more']}", "{'tags': {'$eq': ['test', 'other']}}", false),
                c("[1, 2, 3]", "{'$and': [3]}", true),
                c("[1, 2, 3]", "{'$and': [4]}", false),
                c("[1, 2, 3]", "{'$and': [[{'$eq': 3}]]}", true),
                c("[1, 2, 3]", "{'$and': [[{'$eq': 4}]]}", false),
                c("[1, 2, 3]", "{'$eq': 3}", false),
                c("{'exist': true}", "{'exist': true}", true),
                c("{'exist': true}", "{'exist': false}", false),
                c("{'exist': null}", "{'exist': null}", true),
                c("{'exist': null}", "{'exist': false}", false),
                c("{'exist': null}", "{'exist': {'$eq': null}}", true),
                c("{'exist': null}", "{'exist': {'$neq': null}}", false),
                c("'created'", "{'$and': ['created']}", true),
                c("1", "{'$and': [2]}", false),
                c("10", "{'$gte': 5}", true),
                c("{'test': true}", "{'$and': [true]}", false),
                c("{'test': 'some-text', 'id': 123}", "{'test': {'$in': 'text'}, 'id': {'$in': [123, 456]}}", true),
                c(
                        "{'test': 'some-text', 'id': 123}",
                        "{'test': {'$in': ['some-text', 'other-text']}, 'id': {'$in': [123, 456]}}",
                        true),
                c(
                        "{'test': 'some-text', 'id': 123}",
                        "{'test': {'$in': ['some', 'text']}, 'id': {'$nin': [123, 456]}}",
                        false),
                c("{'test': 'some-text'}", "{'test': {'$in': 'text'}}", true),
                c("{'test': 'some-text'}", "{'test': {'$nin': 'some'}}", false),
                c("{'tags': ['test', 'something']}", "{'tags': {'$nin': 'test'}}", false),
                c("{'test': true}", "{'$or': [{'test': true}]}", true),
                c("{'test': true}", "{'$or': [{'test': false}]}", false),
                c(
                        "{'test': {'something': 'else'}}",
                        "{'test': {'$or': [{'something': true}, {'something': {'$in': 'else'}}]}}",
                        true),
                c(
                        "{'test': {'something': 'else'}}",
                        "{'test': {'$or': [{'something': true}, {'something': {'$in': 'no'}}]}}",
                        false),
                c("1", "{'$or': [1, 2]}", true),
                c("1", "{'$or': [2, 3]}", false),
                c("{'test': true}", "{'$and': [{'test': true}]}", true),
                c(
                        "{'test': {'something': 'else'}}",
                        "{'test': {'$and': [{'something': {'$neq': null}}, {'something': {'$in': 'else'}}]}}",
                        true),
                c(
                        "{'test': {'something': null}}",
                        "{'test': {'$and': [{'something': {'$neq': null}}, {'something': {'$in': 'else'}}]}}",
                        false),
                c("1", "{'$and': [1, 2]}", false),
                c("{'test': 'else'}", "{'test': {'$exist': true}}", true),
                c("{'test': 'else'}", "{'test': {'$exist': false}}", false),
                c("{'test1': 'else'}", "{'test': {'$exist': true}}", false),
                c("{'test1': 'else'}", "{'test': {'$exist': false}}", true),
                c("'/test'", "{'$and': ['/test']}", true),
                c("'/test'", "{'$and': ['/test2']}", false),
                c("{'test': {'test1': 'else'}}", "{'test': {'test1': {'$exist': true, '$or': ['else', 'not']}}}", true),
                c(
                        "{'test': {'test1': 'else1'}}",
                        "{'test': {'test1': {'$exist': true, '$or': ['else', 'not']}}}",
                        false),
                c("{'test': {'test1': 'else'}}", "{'test': {'test1': {'$exist': true, '$in': 'el'}}}", true),
                c("{'test': {'test1': 'else'}}", "{'test': {'test1': {'$exist': true, '$in': 'no'}}}", false),
                c(
                        "{'test': {'test1': 'else', 'test2': 'not'}}",
                        "{'test': {'test1': {'$exist': true, '$or': ['else', 'not']},"
                                + " '$and': [{'test1': 'else'}, {'test2': 'not'}]}}",
                        true),
                c(
                        "{'test': {'test1': 'else', 'test2': 'not'}}",
                        "{'test': {'test1': {'$exist': true, '$or': ['else1', 'not1']},"
                                + " '$and': [{'test1': 'else1'}, {'test2': 'not1'}]}}",
                        false),
                c("{'test': {'test1': {'test2': 'else'}}}", "{'test': {'test1': {'test2': {'$exist': true}}}}", true),
                c("{'test': {'test1': {'test2': 'else'}}}", "{'test': {'test1': {'test2': {'$exist': false}}}}", false),
                c("{'test': {'test1': {'test3': 'else'}}}", "{'test': {'test1': {'test2': {'$exist': false}}}}", true),
                c("{'test': {'test1': {'test3': 'else'}}}", "{'test': {'test1': {'test2': {'$exist': true}}}}", false),
                c(
                        "{'test': {'test1': 'else'}}",
                        "{'$or': [{'test': {'test1': {'$exist': true}}}, {'test': {'test1': 'else1'}}]}",
                        true),
                c(
                        "{'test': {'test2': 'else'}}",
                        "{'$or': [{'test': {'test1': {'$exist': true}}}, {'test': {'test2': 'else1'}}]}",
                        false),
                c(
                        "{'test': {'test1': 'else', 'test2': 'not'}}",
                        "{'$and': [{'test': {'test1': {'$exist': true}}}, {'test': {'test2': 'not1'}}]}",
                        false),
                c(
                        "{'test': {'test2': 'not'}}",
                        "{'$and': [{'test': {'test1': {'$exist': true, '$eq': 'not'}}}]}",
                        false),
                c(
                        "{'test': {'test1': 'else'}}",
                        "{'$and': [{'test': {'test1': {'$exist': true}}}, {'test': {'test2': {'$exist': false}}}]}",
                        true));
    }

    @ParameterizedTest(name = "convoy: {0} with {1} -> {2}")
    @MethodSource("convoy")
    void matchesAsConvoysCasesSay(String payload, String filter, boolean matches) {
        assertThat(Filter.parse(json(filter)).matches(json(payload))).isEqualTo(matches);
    }

    @ParameterizedTest(name = "outpost: {0} with {1} -> {2}")
    @MethodSource("outpost")
    void matchesAsOutpostsCasesSay(String payload, String filter, boolean matches) {
        assertThat(Filter.parse(json(filter)).matches(json(payload))).isEqualTo(matches);
    }

    /** Outpost runs every case again under {@code $not}; a filter and its negation never agree. */
    @ParameterizedTest(name = "not: {0} with {1} -> {2}")
    @MethodSource("outpost")
    void notInvertsEveryCase(String payload, String filter, boolean matches) {
        Filter negated = Filter.parse(json("{'$not': " + filter + "}"));
        assertThat(negated.matches(json(payload))).isEqualTo(!matches);
    }

    @Test
    void aDottedPathAndNestedObjectsAreOneFilter() {
        JsonNode payload = json("{'data': {'amount': 1500, 'currency': 'eur'}}");
        assertThat(Filter.parse(json("{'data.amount': {'$gte': 1000}}")).matches(payload))
                .isTrue();
        assertThat(Filter.parse(json("{'data': {'amount': {'$gte': 1000}}}")).matches(payload))
                .isTrue();
        assertThat(Filter.parse(json("{'data.amount': {'$gte': 2000}}")).matches(payload))
                .isFalse();
    }

    @Test
    void numbersCompareByValueWhateverTheirSpelling() {
        JsonNode payload = json("{'amount': 10.0, 'big': 12345678901234567890}");
        assertThat(Filter.parse(json("{'amount': 10}")).matches(payload)).isTrue();
        assertThat(Filter.parse(json("{'amount': {'$in': [1e1]}}")).matches(payload))
                .isTrue();
        assertThat(Filter.parse(json("{'big': {'$gt': 12345678901234567889}}")).matches(payload))
                .isTrue();
    }

    @Test
    void anAbsentPathIsNotEqualNotInAndDoesNotExist() {
        JsonNode payload = json("{'a': 1}");
        assertThat(Filter.parse(json("{'b': {'$neq': 1}}")).matches(payload)).isTrue();
        assertThat(Filter.parse(json("{'b': {'$nin': [1]}}")).matches(payload)).isTrue();
        assertThat(Filter.parse(json("{'b': {'$exist': false}}")).matches(payload))
                .isTrue();
        assertThat(Filter.parse(json("{'b': {'$gt': 0}}")).matches(payload)).isFalse();
        assertThat(Filter.parse(json("{'b': {'$eq': null}}")).matches(payload)).isFalse();
    }

    @Test
    void aDigitSegmentNamesOneElementOfAnArray() {
        JsonNode payload = json("{'items': [{'sku': 'a'}, {'sku': 'b'}]}");
        assertThat(Filter.parse(json("{'items.1.sku': 'b'}")).matches(payload)).isTrue();
        assertThat(Filter.parse(json("{'items.0.sku': 'b'}")).matches(payload)).isFalse();
        assertThat(Filter.parse(json("{'items.sku': 'b'}")).matches(payload)).isTrue();
    }

    @Test
    void aPayloadThatIsNotJsonMatchesOnlyTheEmptyFilter() {
        assertThat(Filter.parse(json("{}")).matches(null)).isTrue();
        assertThat(Filter.parse(json("{'a': {'$exist': false}}")).matches(null)).isFalse();
    }

    @Test
    void theTextIsKeptAsGiven() {
        String text = "{\"data.amount\":{\"$gte\":1000},\"type\":\"x\"}";
        assertThat(Filter.parse(text).json()).isEqualTo(text);
        assertThat(Filter.parse(text)).isEqualTo(Filter.parse(json(text)));
    }

    static Stream<Arguments> refused() {
        return Stream.of(
                Arguments.of("{'data': {'amount': {'$gtee': 1}}}", "data.amount.$gtee", "unknown operator $gtee"),
                Arguments.of("{'$nor': [{'a': 1}]}", "$nor", "unknown operator $nor"),
                Arguments.of("{'a': {'$gt': [1, 2]}}", "a.$gt", "$gt takes a number or a string"),
                Arguments.of("{'a': {'$lte': true}}", "a.$lte", "$lte takes a number or a string"),
                Arguments.of("{'a': {'$in': 3}}", "a.$in", "$in takes an array"),
                Arguments.of("{'a': {'$exist': 'yes'}}", "a.$exist", "$exist takes true or false"),
                Arguments.of("{'$or': []}", "$or", "$or takes a non-empty array"),
                Arguments.of("{'$and': {'a': 1}}", "$and", "$and takes a non-empty array"),
                Arguments.of("{'$or': [{'a': {'$in': 1}}]}", "$or[0].a.$in", "$in takes an array"),
                Arguments.of("{'a': {}}", "a", "an empty object is not a condition"),
                Arguments.of("{'$not': {}}", "$not", "an empty object is not a condition"),
                Arguments.of("{'a..b': 1}", "a..b", "empty segment"),
                Arguments.of("{'data.$.venue.$': 'x'}", "data.$.venue.$", "may not end with $"),
                Arguments.of("[{'a': 1}]", "", "must be a JSON object"));
    }

    @ParameterizedTest(name = "{0} is refused at {1}")
    @MethodSource("refused")
    void aBadFilterIsRefusedNamingWhereAndWhat(String filter, String path, String message) {
        assertThatThrownBy(() -> Filter.parse(json(filter)))
                .isInstanceOfSatisfying(
                        InvalidJsonException.class, e -> assertThat(e.path()).isEqualTo(path))
                .hasMessageContaining(message);
    }

    @Test
    void deepNestingIsRefused() {
        String deep = "{'a': ".repeat(Filter.MAX_DEPTH + 2) + "1" + "}".repeat(Filter.MAX_DEPTH + 2);
        assertThatThrownBy(() -> Filter.parse(json(deep)))
                .isInstanceOf(InvalidJsonException.class)
                .hasMessageContaining("nests deeper than " + Filter.MAX_DEPTH);
    }
}
