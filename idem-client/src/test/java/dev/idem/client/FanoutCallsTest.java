package dev.idem.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import dev.idem.client.model.Application;
import dev.idem.client.model.ApplicationFields;
import dev.idem.client.model.Endpoint;
import dev.idem.client.model.EndpointFields;
import dev.idem.client.model.EventType;
import dev.idem.client.model.EventTypeFields;
import dev.idem.client.model.ListParams;
import dev.idem.client.testing.TestNode;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@link IdemClient#applications()}, {@link IdemClient#endpoints()}, {@link IdemClient#eventTypes()} and filters against a real node. */
class FanoutCallsTest {
    @TempDir
    static Path dir;

    static TestNode node;
    static IdemClient idem;

    @BeforeAll
    static void start() {
        node = new TestNode(dir);
        idem = node.client();
    }

    @AfterAll
    static void stop() {
        node.close();
    }

    @Test
    void anApplicationAndItsEndpointsGoThroughTheirLife() {
        Application app = idem.applications()
                .create(ApplicationFields.create("Acme")
                        .uid("acme_1")
                        .metadata(Map.of("plan", "pro"))
                        .rateLimit(5));
        assertThat(app.id()).startsWith("app_");
        assertThat(idem.applications().get("acme_1")).isEqualTo(app);
        assertThat(app.metadata().get("plan").asText()).isEqualTo("pro");

        Application renamed = idem.applications()
                .update("acme_1", ApplicationFields.update().name("Acme 2").clear("rate_limit"));
        assertThat(renamed.name()).isEqualTo("Acme 2");
        assertThat(renamed.rateLimit()).isNull();

        Endpoint ep = idem.endpoints()
                .create(EndpointFields.create(node.url() + "/hook")
                        .application("acme_1")
                        .eventTypes("invoice.*", "report.daily")
                        .filter(Map.of("data.amount", Map.of("$gte", 1000)))
                        .headers(Map.of("X-Team", "billing")));
        assertThat(ep.application()).isEqualTo(app.id());
        assertThat(ep.eventTypes()).containsExactly("invoice.*", "report.daily");
        assertThat(ep.filter().toString()).isEqualTo("{\"data.amount\":{\"$gte\":1000}}");
        assertThat(idem.endpoints()
                        .list(ListParams.builder().application("acme_1").build())
                        .data())
                .extracting(Endpoint::id)
                .containsExactly(ep.id());

        Endpoint off = idem.endpoints()
                .update(ep.id(), EndpointFields.update().disabled(true).clear("filter"));
        assertThat(off.status()).isEqualTo("disabled");
        assertThat(off.filter()).isNull();

        var secret = idem.endpoints().secret(ep.id());
        assertThat(secret.secret()).startsWith("whsec_");
        var rotated = idem.endpoints().rotateSecret(ep.id());
        assertThat(rotated.secret()).isNotEqualTo(secret.secret());
        assertThat(rotated.previousExpiresAt()).isNotNull();

        assertThat(idem.applications().delete(app.id()).status()).isEqualTo("deleted");
        assertThat(idem.endpoints().get(ep.id()).disabledReason()).isEqualTo("manual");
        assertThat(idem.endpoints().delete(ep.id()).status()).isEqualTo("deleted");
    }

    @Test
    void eventTypesAreNamedAndPagedByName() {
        EventType paid = idem.eventTypes()
                .create(EventTypeFields.create("invoice.paid")
                        .schema(Map.of("type", "object", "required", List.of("amount")))
                        .example(Map.of("amount", 1)));
        idem.eventTypes().create(EventTypeFields.create("invoice.voided"));
        assertThat(idem.eventTypes().get("invoice.paid")).isEqualTo(paid);
        assertThat(idem.eventTypes().list(ListParams.builder().limit(1).build()).autoPaging())
                .extracting(EventType::name)
                .containsSubsequence("invoice.paid", "invoice.voided");
        assertThat(idem.eventTypes()
                        .update("invoice.paid", EventTypeFields.update().deprecated(true))
                        .deprecated())
                .isTrue();
        IdemException bad = catchThrowableOfType(
                IdemException.class,
                () -> idem.eventTypes()
                        .update("invoice.paid", EventTypeFields.update().example(Map.of("n", 1))));
        assertThat(bad.param()).isEqualTo("example");
        idem.eventTypes().delete("invoice.voided");
        assertThat(catchThrowableOfType(
                                IdemException.class, () -> idem.eventTypes().get("invoice.voided"))
                        .type())
                .isEqualTo("not_found_error");
    }

    @Test
    void aFilterIsTriedAndABadOneNamesItsPath() {
        Map<String, Object> filter = Map.of("data.amount", Map.of("$gte", 1000));
        assertThat(idem.testFilter(filter, Map.of("data", Map.of("amount", 1500))))
                .isTrue();
        assertThat(idem.testFilter(filter, Map.of("data", Map.of("amount", 15))))
                .isFalse();
        IdemException e = catchThrowableOfType(
                IdemException.class, () -> idem.testFilter(Map.of("a", Map.of("$gtee", 1)), Map.of()));
        assertThat(e.httpStatus()).isEqualTo(400);
        assertThat(e.code()).isEqualTo("filter_invalid");
        assertThat(e.param()).isEqualTo("filter.a.$gtee");
    }
}
