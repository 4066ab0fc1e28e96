/**
 * The Java client for Idem's HTTP API ({@code dev.idem.client}), its request and response types
 * ({@code dev.idem.client.model}) and the transactional outbox ({@code dev.idem.client.outbox}).
 * {@code dev.idem.client.internal} (transport, JSON, retries) is not exported.
 */
module dev.idem.client {
    requires transitive dev.idem.wire;
    requires transitive com.fasterxml.jackson.databind;
    requires com.fasterxml.jackson.datatype.jsr310;
    requires transitive java.net.http;
    requires transitive java.sql;
    // tracing is optional: the client propagates the caller's trace context only when the OpenTelemetry API is present
    requires static io.opentelemetry.api;
    requires static io.opentelemetry.context;

    exports dev.idem.client;
    exports dev.idem.client.model;
    exports dev.idem.client.outbox;

    // Jackson binds the request and response records by reflection
    opens dev.idem.client.model to
            com.fasterxml.jackson.databind;
}
