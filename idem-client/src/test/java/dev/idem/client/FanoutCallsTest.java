package dev.idem.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowableOfType;
import static org.awaitility.Awaitility.await;

import dev.idem.client.model.Application;
import dev.idem.client.model.ApplicationFields;
import dev.idem.client.model.Endpoint;
import dev.idem.client.model.EndpointFields;
import dev.idem.client.model.EventType;
import dev.idem.client.model.EventTypeFields;
import dev.idem.client.model.ListParams;
import dev.idem.client.model.Message;
import dev.idem.client.model.MessageSend;
import dev.idem.client.testing.Receiver;
import dev.idem.client.testing.TestNode;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link IdemClient#applications()}, {@link IdemClient#endpoints()}, {@link IdemClient#eventTypes()}, filters and
 * {@link IdemClient#messages()} against a real node.
 */
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

    @Test
    void aMessageGoesToEachSubscribedEndpointAndIsReadBackWithItsDeliveries() throws Exception {
        try (Receiver receiver = new Receiver()) {
            idem.applications().create(ApplicationFields.create("Shop").uid("msg_shop"));
            Endpoint orders = idem.endpoints()
                    .create(EndpointFields.create(receiver.url("/orders"))
                            .application("msg_shop")
                            .eventTypes("order.*"));
            Endpoint all = idem.endpoints()
                    .create(EndpointFields.create(receiver.url("/all")).application("msg_shop"));
            idem.endpoints()
                    .create(EndpointFields.create(receiver.url("/reports"))
                            .application("msg_shop")
                            .eventTypes("report.*"));
            Instant before = Instant.now().minusSeconds(1);

            Message sent = idem.messages()
                    .send(MessageSend.builder("order.placed")
                            .application("msg_shop")
                            .payload(Map.of("order", "o_1"))
                            .idempotencyKey("o_1-placed")
                            .build());
            assertThat(sent.id()).startsWith("msg_");
            assertThat(sent.deliveries()).isEqualTo(2);
            assertThat(sent.endpointDeliveries()).isNull();
            await().atMost(Duration.ofSeconds(20)).until(() -> receiver.received() == 2);

            Message read = idem.messages().get(sent.id());
            assertThat(read.payload().get("order").asText()).isEqualTo("o_1");
            assertThat(read.endpointDeliveries())
                    .extracting(d -> d.endpointId())
                    .containsExactlyInAnyOrder(orders.id(), all.id());
            assertThat(read.endpointDeliveries()).allSatisfy(d -> {
                assertThat(d.messageId()).isEqualTo(sent.id());
                assertThat(d.idempotencyKey()).isEqualTo("o_1-placed:" + d.endpointId());
            });
            await().atMost(Duration.ofSeconds(20))
                    .until(() -> idem.messages().get(sent.id()).endpointDeliveries().stream()
                            .allMatch(d -> d.status().equals("succeeded")));

            Message invoice = idem.messages()
                    .send(MessageSend.builder("invoice.sent")
                            .application("msg_shop")
                            .payload(List.of())
                            .build());
            assertThat(invoice.deliveries()).isEqualTo(1);
            idem.applications().create(ApplicationFields.create("Quiet").uid("msg_quiet"));
            Message unheard = idem.messages()
                    .send(MessageSend.builder("order.placed")
                            .application("msg_quiet")
                            .payload(Map.of())
                            .build());
            assertThat(unheard.deliveries()).isZero();
            assertThat(idem.messages().get(unheard.id()).endpointDeliveries()).isEmpty();
            assertThat(idem.deliveries()
                            .list(ListParams.builder().endpointId(orders.id()).build())
                            .data())
                    .extracting(d -> d.messageId())
                    .containsExactly(sent.id());

            ListParams ofShop = ListParams.builder()
                    .application("msg_shop")
                    .since(before)
                    .limit(1)
                    .build();
            assertThat(idem.messages().list(ofShop).autoPaging())
                    .extracting(Message::id)
                    .containsExactly(invoice.id(), sent.id());
            assertThat(idem.messages()
                            .list(ListParams.builder()
                                    .application("msg_shop")
                                    .eventType("order.placed")
                                    .build())
                            .data())
                    .extracting(Message::id)
                    .containsExactly(sent.id());
            assertThat(idem.messages()
                            .list(ListParams.builder()
                                    .application("msg_shop")
                                    .until(before)
                                    .build())
                            .data())
                    .isEmpty();
        }
    }

    @Test
    void aSecondSendWithTheSameDedupIdAnswersTheFirstMessage() {
        MessageSend once = MessageSend.builder("dedup.tested")
                .payloadJson("{\"amount\": 1.50}")
                .dedupId("dedup-1")
                .build();
        assertThat(once.toJson()).contains("\"payload\":{\"amount\": 1.50}");
        IdemResponse<Message> first = idem.messages().sendWithResponse(once, RequestOptions.none());
        IdemResponse<Message> second = idem.messages().sendWithResponse(once, RequestOptions.none());
        assertThat(first.status()).isEqualTo(201);
        assertThat(first.deduplicated()).isFalse();
        assertThat(second.deduplicated()).isTrue();
        assertThat(second.value().id()).isEqualTo(first.value().id());
        assertThat(first.value().dedupId()).isEqualTo("dedup-1");
    }

    @Test
    void aPayloadFailingItsEventTypesSchemaIsRefusedNamingItsPathAndNothingIsSent() {
        idem.eventTypes()
                .create(EventTypeFields.create("refund.issued")
                        .schema(Map.of("type", "object", "properties", Map.of("amount", Map.of("type", "integer")))));
        IdemException e = catchThrowableOfType(
                IdemException.class,
                () -> idem.messages()
                        .send(MessageSend.builder("refund.issued")
                                .payload(Map.of("amount", "ten"))
                                .build()));
        assertThat(e.httpStatus()).isEqualTo(400);
        assertThat(e.code()).isEqualTo("payload_invalid");
        assertThat(e.param()).isEqualTo("payload.amount");
        assertThat(idem.messages()
                        .list(ListParams.builder().eventType("refund.issued").build())
                        .data())
                .isEmpty();
        assertThat(catchThrowableOfType(
                                IdemException.class, () -> idem.messages().get("msg_missing"))
                        .type())
                .isEqualTo("not_found_error");
        assertThatThrownBy(() -> MessageSend.builder("refund.issued").build())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("payload");
    }
}
