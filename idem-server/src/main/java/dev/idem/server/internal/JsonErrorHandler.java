package dev.idem.server.internal;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.idem.core.IdGenerator;
import java.nio.ByteBuffer;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.server.handler.ErrorHandler;
import org.eclipse.jetty.util.Callback;

/**
 * Errors Jetty answers itself, before a request reaches the API (a path it cannot decode, a header too
 * large): still the SPEC's JSON error shape with a {@code Request-Id}, never Jetty's HTML page.
 */
final class JsonErrorHandler extends ErrorHandler {
    private final IdGenerator ids;

    JsonErrorHandler(IdGenerator ids) {
        this.ids = ids;
    }

    @Override
    protected void generateResponse(Request request, Response response, int code, String message, Throwable cause, Callback callback) {
        String requestId = ids.next("req");
        boolean ours = code >= 500;
        ObjectNode err = Json.object();
        err.put("type", ours ? "api_error" : code == 404 ? "not_found_error" : "invalid_request_error");
        err.put("code", ours ? "internal_error" : code == 404 ? "route_not_found" : "malformed_request");
        err.put("message", ours ? "Something went wrong on our side; it is safe to retry"
                : "The request could not be read (" + code + (message == null ? "" : ": " + message) + "); check its URL, headers and body");
        err.putNull("param");
        err.put("request_id", requestId);
        ObjectNode body = Json.object();
        body.set("error", err);
        response.getHeaders().put(HttpHeader.CONTENT_TYPE, "application/json");
        response.getHeaders().put("Request-Id", requestId);
        response.write(true, ByteBuffer.wrap(Json.bytes(body)), callback);
    }
}
