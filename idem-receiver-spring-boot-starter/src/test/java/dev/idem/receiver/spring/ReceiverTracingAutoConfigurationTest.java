package dev.idem.receiver.spring;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idem.receiver.Receipt;
import dev.idem.receiver.Receiver;
import dev.idem.receiver.ReceiverTracing;
import dev.idem.wire.SigningSecret;
import dev.idem.wire.WebhookSigner;
import io.opentelemetry.api.OpenTelemetry;
import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.trace.propagation.W3CTraceContextPropagator;
import io.opentelemetry.context.propagation.ContextPropagators;
import io.opentelemetry.sdk.OpenTelemetrySdk;
import io.opentelemetry.sdk.testing.exporter.InMemorySpanExporter;
import io.opentelemetry.sdk.trace.SdkTracerProvider;
import io.opentelemetry.sdk.trace.data.SpanData;
import io.opentelemetry.sdk.trace.export.SimpleSpanProcessor;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/** The starter's receiver spans through the application's OpenTelemetry bean, as Spring Boot's setup defines one. */
class ReceiverTracingAutoConfigurationTest {
    static final String SECRET = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw";
    static final String PARENT_TRACE = "4bf92f3577b34da6a3ce929d0e0e4736";
    static final String PARENT_SPAN = "00f067aa0ba902b7";

    final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(IdemReceiverAutoConfiguration.class))
            .withPropertyValues("idem.receiver.secrets=" + SECRET);

    @Test
    void withAnOpenTelemetryBeanTheHandlerSpanGoesThroughItAndContinuesTheDeliverysTraceparent() {
        InMemorySpanExporter spans = InMemorySpanExporter.create();
        OpenTelemetrySdk sdk = OpenTelemetrySdk.builder()
                .setTracerProvider(SdkTracerProvider.builder()
                        .addSpanProcessor(SimpleSpanProcessor.create(spans))
                        .build())
                .setPropagators(ContextPropagators.create(W3CTraceContextPropagator.getInstance()))
                .build();
        runner.withBean(OpenTelemetry.class, () -> sdk).run(ctx -> {
            assertThat(ctx).hasSingleBean(ReceiverTracing.class);
            Receipt r = receive(ctx.getBean(Receiver.class));

            assertThat(r.status()).isEqualTo(Receipt.Status.PROCESSED);
            SpanData span = spans.getFinishedSpanItems().get(0);
            assertThat(span.getTraceId()).isEqualTo(PARENT_TRACE);
            assertThat(span.getParentSpanId()).isEqualTo(PARENT_SPAN);
            assertThat(span.getAttributes().get(AttributeKey.stringKey("idem.inbox.outcome")))
                    .isEqualTo("processed");
        });
        sdk.close();
    }

    @Test
    void withoutAnOpenTelemetryBeanNoTracingBeanIsMadeAndTheReceiverStillReceives() {
        runner.run(ctx -> {
            assertThat(ctx).doesNotHaveBean(ReceiverTracing.class);
            assertThat(receive(ctx.getBean(Receiver.class)).status()).isEqualTo(Receipt.Status.PROCESSED);
        });
    }

    static Receipt receive(Receiver receiver) throws Exception {
        byte[] body = "{\"n\":1}".getBytes(StandardCharsets.UTF_8);
        long ts = Instant.now().getEpochSecond();
        Map<String, String> h = Map.of(
                "webhook-id",
                "dlv_starter",
                "webhook-timestamp",
                Long.toString(ts),
                "webhook-signature",
                WebhookSigner.sign(SigningSecret.parse(SECRET), "dlv_starter", ts, body),
                "traceparent",
                "00-" + PARENT_TRACE + "-" + PARENT_SPAN + "-01");
        return receiver.receive(n -> h.get(n.toLowerCase(java.util.Locale.ROOT)), body, d -> null);
    }
}
