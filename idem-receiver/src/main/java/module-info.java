/**
 * The receiver SDK: verification, idempotent claims and inboxes ({@code dev.idem.receiver}) and the servlet filter
 * ({@code dev.idem.receiver.servlet}). {@code dev.idem.receiver.internal} (SQL dialects, buffered bodies, a small
 * JSON reader) is not exported.
 */
module dev.idem.receiver {
    requires transitive dev.idem.wire;
    requires transitive java.sql;
    requires org.slf4j;
    // each adapter's library is optional: only the adapters an application uses need theirs present; transitive
    // because those adapters' signatures name its types (Filter, UnifiedJedis, OpenTelemetry)
    requires static transitive jakarta.servlet;
    requires static transitive redis.clients.jedis;
    requires static transitive io.opentelemetry.api;
    requires static io.opentelemetry.context;

    exports dev.idem.receiver;
    exports dev.idem.receiver.servlet;
}
