/**
 * The HTTP server: {@code dev.idem.server} ({@code IdemServer}, {@code ServerConfig} and the key administration the
 * command line drives). {@code dev.idem.server.internal} (routes, handlers, JSON mapping) is not exported.
 */
module dev.idem.server {
    requires transitive dev.idem.engine;
    requires transitive dev.idem.store;
    requires io.javalin;
    requires org.eclipse.jetty.http;
    requires org.eclipse.jetty.io;
    requires org.eclipse.jetty.server;
    requires org.eclipse.jetty.util;
    requires com.fasterxml.jackson.databind;
    requires com.github.benmanes.caffeine;
    requires micrometer.core;
    requires micrometer.registry.prometheus;
    requires micrometer.jetty12;
    requires org.slf4j;
    // tracing (docs/tracing.md): the API only; IdemServer.start takes the launcher's OpenTelemetry
    requires transitive io.opentelemetry.api;
    requires io.opentelemetry.context;
    requires io.opentelemetry.semconv;

    exports dev.idem.server;
}
