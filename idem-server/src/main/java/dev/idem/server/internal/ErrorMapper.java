package dev.idem.server.internal;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.javalin.config.JavalinConfig;
import io.javalin.http.Context;
import io.javalin.http.HttpResponseException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** The one place errors become HTTP responses: always the SPEC shape, with the request id. */
public final class ErrorMapper {
    private static final Logger log = LoggerFactory.getLogger(ErrorMapper.class);
    private static final java.util.Set<String> UNREADABLE = java.util.Set.of("org.eclipse.jetty.http.BadMessageException",
            "org.eclipse.jetty.io.EofException", "org.eclipse.jetty.server.internal.HttpConnection$HttpEofException",
            "org.eclipse.jetty.http.HttpException$RuntimeException", "org.eclipse.jetty.http.HttpException$IllegalArgumentException");

    private ErrorMapper() {}

    public static void install(JavalinConfig config) {
        config.routes.exception(ApiException.class, (e, ctx) -> write(ctx, e));
        config.routes.exception(HttpResponseException.class, (e, ctx) -> write(ctx, translate(e, ctx)));
        config.routes.exception(Exception.class, (e, ctx) -> {
            if (unreadableRequest(e)) {
                write(ctx, ApiException.invalid("malformed_request", null, "The request body could not be read (broken chunked encoding or a closed connection)"));
                return;
            }
            log.error("unhandled error on {} {} (request {})", ctx.method(), ctx.path(), RequestIds.of(ctx), e);
            write(ctx, ApiException.internal("Something went wrong on our side; it is safe to retry. Request " + RequestIds.of(ctx)));
        });
        config.routes.error(404, "*", ctx -> {
            if (ctx.result() == null || ctx.result().isEmpty()) write(ctx, ApiException.routeNotFound(ctx.method().name(), ctx.path()));
        });
        config.routes.error(405, "*", ctx -> write(ctx, ApiException.routeNotFound(ctx.method().name(), ctx.path())));
    }

    /** A body Jetty could not read is the client's error (400), not ours. */
    private static boolean unreadableRequest(Throwable e) {
        for (Throwable t = e; t != null; t = t.getCause() == t ? null : t.getCause())
            for (Class<?> c = t.getClass(); c != null; c = c.getSuperclass())
                if (UNREADABLE.contains(c.getName())) return true;
        return false;
    }

    private static ApiException translate(HttpResponseException e, Context ctx) {
        if (e.getStatus() == 413) return ApiException.invalid("body_too_large", null, "Request body is over 256 KiB");
        if (e.getStatus() == 404 || e.getStatus() == 405) return ApiException.routeNotFound(ctx.method().name(), ctx.path());
        if (e.getStatus() >= 500) return ApiException.internal(e.getMessage());
        return ApiException.invalid("invalid_request", null, e.getMessage());
    }

    public static void write(Context ctx, ApiException e) {
        ObjectNode body = Json.object();
        body.set("error", error(e, RequestIds.of(ctx)));
        if (e.retryAfterSeconds() != null) ctx.header("Retry-After", e.retryAfterSeconds());
        ctx.status(e.status()).contentType("application/json").result(Json.bytes(body));
    }

    /** The error object of the SPEC's shape (what goes under {@code "error"}). */
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
