package dev.idem.core.fanout;

import static dev.idem.core.fanout.FilterTest.json;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.idem.core.fanout.EventSchema.Violation;
import org.junit.jupiter.api.Test;

class EventSchemaTest {
    private static final String INVOICE = "{'type': 'object', 'required': ['data'], 'properties': {'data': {"
            + "'type': 'object', 'required': ['amount'], 'properties': {'amount': {'type': 'integer', 'minimum': 0},"
            + " 'items': {'type': 'array', 'items': {'$ref': '#/$defs/item'}}}}},"
            + " '$defs': {'item': {'type': 'object', 'required': ['sku'], 'properties': {'sku': {'type': 'string'}}}}}";

    private static String text(String singleQuoted) {
        return json(singleQuoted).toString();
    }

    @Test
    void aConformingPayloadHasNoViolation() {
        EventSchema s = EventSchema.parse(json(INVOICE));
        assertThat(s.violations(text("{'data': {'amount': 5, 'items': [{'sku': 'a'}]}}"), 10))
                .isEmpty();
    }

    @Test
    void aViolationNamesTheJsonPathOfTheValueAtFault() {
        EventSchema s = EventSchema.parse(json(INVOICE));
        assertThat(s.violations(text("{'data': {'amount': 'five'}}"), 10))
                .extracting(Violation::path)
                .containsExactly("data.amount");
        assertThat(s.violations(text("{'data': {'amount': 1, 'items': [{'sku': 'a'}, {'sku': 2}]}}"), 10))
                .extracting(Violation::path)
                .containsExactly("data.items[1].sku");
        assertThat(s.violations(text("{'data': {'amount': -1}}"), 10).get(0).message())
                .contains("minimum");
        assertThat(s.violations(text("{}"), 10).get(0).path()).isEmpty();
    }

    @Test
    void violationsStopAtTheLimit() {
        EventSchema s = EventSchema.parse(json("{'type': 'object', 'properties': {'a': {'type': 'string'},"
                + " 'b': {'type': 'string'}, 'c': {'type': 'string'}}}"));
        assertThat(s.violations(text("{'a': 1, 'b': 2, 'c': 3}"), 2)).hasSize(2);
    }

    @Test
    void aSchemaReadBackValidatesAsTheOneGiven() {
        EventSchema given = EventSchema.parse(json(INVOICE));
        EventSchema stored = EventSchema.stored(given.json());
        assertThat(stored).isEqualTo(given);
        assertThat(stored.violations(text("{'data': {'amount': 'x'}}"), 10))
                .isEqualTo(given.violations(text("{'data': {'amount': 'x'}}"), 10));
    }

    @Test
    void anInvalidSchemaIsRefusedNamingTheKeywordAtFault() {
        assertThatThrownBy(() -> EventSchema.parse(json("{'properties': {'amount': {'type': 'strng'}}}")))
                .isInstanceOfSatisfying(
                        InvalidJsonException.class, e -> assertThat(e.path()).isEqualTo("properties.amount.type"));
        assertThatThrownBy(() -> EventSchema.parse(json("{'required': 'amount'}")))
                .isInstanceOfSatisfying(
                        InvalidJsonException.class, e -> assertThat(e.path()).isEqualTo("required"));
        assertThatThrownBy(() -> EventSchema.parse(json("[1]"))).hasMessageContaining("must be a JSON object");
    }

    @Test
    void theDraftIsTheOneTheSchemaDeclares() {
        // draft-07's array form of items is not 2020-12's; each is valid under its own meta-schema
        String tuple = "{'$schema': 'http://json-schema.org/draft-07/schema#', 'items': [{'type': 'string'}]}";
        EventSchema s = EventSchema.parse(json(tuple));
        assertThat(s.violations(text("[1]"), 10)).extracting(Violation::path).containsExactly("[0]");
        assertThatThrownBy(() -> EventSchema.parse(json("{'items': [{'type': 'string'}]}")))
                .isInstanceOf(InvalidJsonException.class);
        assertThatThrownBy(() -> EventSchema.parse(json("{'$schema': 'https://example.com/my-draft'}")))
                .isInstanceOfSatisfying(
                        InvalidJsonException.class, e -> assertThat(e.path()).isEqualTo("$schema"));
    }

    @Test
    void aReferenceOutsideTheSchemaIsRefused() {
        assertThatThrownBy(() ->
                        EventSchema.parse(json("{'properties': {'a': {'$ref': 'http://127.0.0.1:9/schema.json'}}}")))
                .isInstanceOfSatisfying(
                        InvalidJsonException.class, e -> assertThat(e.path()).isEqualTo("properties.a.$ref"))
                .hasMessageContaining("only local references");
    }
}
