package dev.idem.server.internal;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.idem.core.store.CommitOutcomeUnknownException;
import dev.idem.core.store.StoreException;
import io.javalin.config.JavalinConfig;
import io.javalin.http.Context;
import io.javalin.http.HttpResponseException;
import io.javalin.http.MethodNotAllowedResponse;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** The one place errors become HTTP responses: always the documented shape (docs/api.md), with the request id. */
final class ErrorMapper {
    private static final Logger log = LoggerFactory.getLogger(ErrorMapper.class);
    private static final java.util.Set<String> UNREADABLE = java.util.Set.of(
            "org.eclipse.jetty.http.BadMessageException",
            "org.eclipse.jetty.io.EofException",
            "org.eclipse.jetty.server.internal.HttpConnection$HttpEofException",
            "org.eclipse.jetty.http.HttpException$RuntimeException",
            "org.eclipse.jetty.http.HttpException$IllegalArgumentException");

    private ErrorMapper() {}

    private static final long UNAVAILABLE_LOG_EVERY_NANOS = java.util.concurrent.TimeUnit.SECONDS.toNanos(1);
    private static final java.util.concurrent.atomic.AtomicLong lastUnavailableLog =
            new java.util.concurrent.atomic.AtomicLong(System.nanoTime() - UNAVAILABLE_LOG_EVERY_NANOS);
    private static final java.util.concurrent.atomic.AtomicLong unlogged = new java.util.concurrent.atomic.AtomicLong();

    /** Seconds a client is asked to wait after a 503: about one pool timeout, when the store has had a chance to come back. */
    static final int STORE_RETRY_AFTER_SECONDS = 2;

    public static void install(JavalinConfig config) {
        // a known path with another method is a 405 with Allow, not a 404
        config.http.prefer405over404 = true;
        config.routes.exception(ApiException.class, (e, ctx) -> write(ctx, e));
        config.routes.exception(HttpResponseException.class, (e, ctx) -> write(ctx, translate(e, ctx)));
        config.routes.exception(StoreException.class, (e, ctx) -> write(ctx, storeFailure(e, ctx)));
        config.routes.exception(Exception.class, (e, ctx) -> {
            if (unreadableRequest(e)) {
                write(
                        ctx,
                        ApiException.invalid(
                                "malformed_request",
                                null,
                                "The request body could not be read (broken chunked encoding or a closed connection)"));
                return;
            }
            StoreException store = storeCause(e);
            if (store != null) {
                write(ctx, storeFailure(store, ctx));
                return;
            }
            log.error("unhandled error on {} {} (request {})", ctx.method(), ctx.path(), RequestIds.of(ctx), e);
            write(
                    ctx,
                    ApiException.internal(
                            "Something went wrong on our side; it is safe to retry. Request " + RequestIds.of(ctx)));
        });
        config.routes.error(404, "*", ctx -> {
            if (ctx.result() == null || ctx.result().isEmpty())
                write(ctx, ApiException.routeNotFound(ctx.method().name(), ctx.path()));
        });
    }

    /**
     * A store failure the database may recover from (a refused, lost or timed-out connection, a terminated backend, a
     * serialization failure) is a 503 with {@code Retry-After}: nothing was applied (a COMMIT whose answer was lost is
     * asked about before this), and the client's retry is the remedy. When whether it committed could not be learnt,
     * the 503 says so ({@code store_outcome_unknown}). Anything else is our bug: a 500.
     */
    private static ApiException storeFailure(StoreException e, Context ctx) {
        if (e instanceof CommitOutcomeUnknownException) {
            log.error(
                    "store lost a COMMIT on {} {} (request {}) and could not tell its outcome",
                    ctx.method(),
                    ctx.path(),
                    RequestIds.of(ctx),
                    e);
            return ApiException.outcomeUnknown(
                    "The database connection broke while this request was being committed, and the database could"
                            + " not be asked whether it was applied: it may have been. Retry with the same Idempotency-Key (never applied twice),"
                            + " or look the object up before sending it again",
                    STORE_RETRY_AFTER_SECONDS);
        }
        if (!e.transientFailure()) {
            log.error("store failure on {} {} (request {})", ctx.method(), ctx.path(), RequestIds.of(ctx), e);
            return ApiException.internal(
                    "Something went wrong on our side; it is safe to retry. Request " + RequestIds.of(ctx));
        }
        long now = System.nanoTime();
        long last = lastUnavailableLog.get();
        // an outage under load fails thousands of requests a second: one line a second says it (the rest at debug)
        if (now - last >= UNAVAILABLE_LOG_EVERY_NANOS && lastUnavailableLog.compareAndSet(last, now))
            log.warn(
                    "store unavailable on {} {} (request {}; {} more since the last such line): {}",
                    ctx.method(),
                    ctx.path(),
                    RequestIds.of(ctx),
                    unlogged.getAndSet(0),
                    e.getMessage());
        else {
            unlogged.incrementAndGet();
            log.debug(
                    "store unavailable on {} {} (request {}): {}",
                    ctx.method(),
                    ctx.path(),
                    RequestIds.of(ctx),
                    e.getMessage());
        }
        return ApiException.unavailable(
                "The database is not answering right now; retry in a few seconds (with the same Idempotency-Key,"
                        + " a retried request is never applied twice)",
                STORE_RETRY_AFTER_SECONDS);
    }

    private static StoreException storeCause(Throwable e) {
        for (Throwable t = e; t != null; t = t.getCause() == t ? null : t.getCause())
            if (t instanceof StoreException s) return s;
        return null;
    }

    /** A body Jetty could not read is the client's error (400), not ours. */
    private static boolean unreadableRequest(Throwable e) {
        for (Throwable t = e; t != null; t = t.getCause() == t ? null : t.getCause())
            for (Class<?> c = t.getClass(); c != null; c = c.getSuperclass())
                if (UNREADABLE.contains(c.getName())) return true;
        return false;
    }

    private static ApiException translate(HttpResponseException e, Context ctx) {
        if (e instanceof MethodNotAllowedResponse)
            return ApiException.methodNotAllowed(ctx.method().name(), ctx.path(), allowed(e));
        return forStatus(e.getStatus(), e.getMessage(), ctx.method().name(), ctx.path());
    }

    /**
     * What a bare status from Jetty or Javalin (answered before or outside a route: a request line Jetty cannot
     * parse, a header block too large, a body that stalled) means in the API's terms.
     */
    static ApiException forStatus(int status, String detail, String method, String path) {
        return switch (status) {
            case 404 -> ApiException.routeNotFound(method, path);
            case 405 -> ApiException.methodNotAllowed(method, path, "GET");
            case 408 ->
                ApiException.requestTimeout(
                        "The request did not arrive in time: send the headers and the whole body promptly"
                                + (detail == null ? "" : " (" + detail + ")"));
            case 413 -> BodyLimits.over(path);
            case 503 ->
                ApiException.busy(
                        "This node has more requests in hand than it serves at once and did not take this one; retry"
                                + " in a few seconds",
                        STORE_RETRY_AFTER_SECONDS);
            case 505 ->
                ApiException.invalid(
                        "http_version_not_supported",
                        null,
                        "Idem speaks HTTP/1.1 and HTTP/1.0: send a request line such as 'GET /v1/schedules HTTP/1.1' (HTTP/0.9 is not supported)");
            default ->
                status >= 500
                        ? ApiException.internal("Something went wrong on our side; it is safe to retry")
                        : ApiException.invalid(
                                "malformed_request",
                                null,
                                "The request could not be read (" + status + (detail == null ? "" : ": " + detail)
                                        + "); check its URL, headers and body");
        };
    }

    /** The methods Javalin found for the path (its details say "GET, PATCH"), HEAD with GET as Jetty serves it. */
    private static String allowed(HttpResponseException e) {
        java.util.Set<String> methods = new java.util.LinkedHashSet<>();
        for (String v : e.getDetails().values())
            for (String m : v.split("[,\\s]+"))
                if (!m.isBlank()) methods.add(m.trim().toUpperCase(java.util.Locale.ROOT));
        if (methods.contains("GET")) methods.add("HEAD");
        return String.join(", ", methods);
    }

    public static void write(Context ctx, ApiException e) {
        e.headers().forEach(ctx::header);
        ctx.status(e.status()).contentType("application/json").result(Json.bytes(body(e, RequestIds.of(ctx))));
    }

    /** The API's error shape: {@code {"error": {...}}}. */
    static ObjectNode body(ApiException e, String requestId) {
        ObjectNode body = Json.object();
        body.set("error", error(e, requestId));
        return body;
    }

    /** The error object of the API's shape (what goes under {@code "error"}). */
    static ObjectNode error(ApiException e, String requestId) {
        ObjectNode err = Json.object();
        err.put("type", e.type());
        err.put("code", e.code());
        err.put("message", e.getMessage());
        if (e.param() == null) err.putNull("param");
        else err.put("param", e.param());
        err.put("request_id", requestId);
        return err;
    }
}
