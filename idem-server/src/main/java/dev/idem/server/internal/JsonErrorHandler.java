package dev.idem.server.internal;

import dev.idem.core.IdGenerator;
import java.nio.ByteBuffer;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.server.handler.ErrorHandler;
import org.eclipse.jetty.util.Callback;

/**
 * Errors Jetty answers itself, before a request reaches the API (a path it cannot decode, a header too
 * large): still the API's JSON error shape with a {@code Request-Id}, never Jetty's HTML page.
 */
final class JsonErrorHandler extends ErrorHandler {
    private final IdGenerator ids;

    JsonErrorHandler(IdGenerator ids) {
        this.ids = ids;
    }

    @Override
    protected void generateResponse(
            Request request, Response response, int code, String message, Throwable cause, Callback callback) {
        String requestId = ids.next("req");
        ApiException e = ErrorMapper.forStatus(
                code,
                message,
                request.getMethod(),
                request.getHttpURI() == null ? "?" : request.getHttpURI().getPath());
        response.getHeaders().put(HttpHeader.CONTENT_TYPE, "application/json");
        response.getHeaders().put("Request-Id", requestId);
        e.headers().forEach((k, v) -> response.getHeaders().put(k, v));
        response.write(true, ByteBuffer.wrap(Json.bytes(ErrorMapper.body(e, requestId))), callback);
    }
}
