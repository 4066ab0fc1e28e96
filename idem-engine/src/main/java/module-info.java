/**
 * The delivery engine: {@code dev.idem.engine} ({@code Engine}, {@code EngineConfig}) claims due deliveries from a
 * store and sends them. {@code dev.idem.engine.internal} (dispatcher, destinations, HTTP sender) is not exported.
 */
module dev.idem.engine {
    requires transitive dev.idem.core;
    // Engine's constructor takes a MeterRegistry
    requires transitive micrometer.core;
    requires org.apache.httpcomponents.client5.httpclient5;
    requires org.apache.httpcomponents.core5.httpcore5;
    requires org.apache.httpcomponents.core5.httpcore5.h2;
    requires com.github.benmanes.caffeine;
    requires org.slf4j;
    // tracing (docs/tracing.md): the API only; Engine's constructor takes the launcher's OpenTelemetry
    requires transitive io.opentelemetry.api;
    requires io.opentelemetry.context;
    requires io.opentelemetry.semconv;

    exports dev.idem.engine;
}
