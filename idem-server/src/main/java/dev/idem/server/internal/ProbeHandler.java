package dev.idem.server.internal;

import dev.idem.core.IdGenerator;
import java.nio.ByteBuffer;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.util.Callback;

/**
 * {@code GET /healthz} and {@code GET /readyz} answered in front of every other handler, from memory: before the
 * body loader, before the limit on requests in hand ({@link ApiAdmission}) and before the API's routes. A liveness
 * check therefore never waits for the store, nor for a request thread behind API requests that wait for it: during a
 * database outage with hundreds of clients, {@code /healthz} still answers at once, so an orchestrator does not
 * restart nodes that are healthy. The same paths with a query string, or another method, go on to the API's routes
 * (which answer the same, or 405).
 */
final class ProbeHandler extends Handler.Wrapper {
    private static final byte[] HEALTHY = Json.bytes(Json.object().put("status", "ok"));

    private final ReadinessProbe readiness;
    private final String dialect;
    private final IdGenerator ids;

    ProbeHandler(ReadinessProbe readiness, String dialect, IdGenerator ids) {
        this.readiness = readiness;
        this.dialect = dialect;
        this.ids = ids;
    }

    @Override
    public boolean handle(Request request, Response response, Callback callback) throws Exception {
        String method = request.getMethod();
        if ((method.equals("GET") || method.equals("HEAD"))
                && request.getHttpURI().getQuery() == null) {
            String path = Request.getPathInContext(request);
            if (path.equals("/healthz")) return answer(response, callback, 200, HEALTHY);
            if (path.equals("/readyz")) {
                boolean up = readiness.ready();
                return answer(response, callback, up ? 200 : 503, readyBody(up, dialect));
            }
        }
        return super.handle(request, response, callback);
    }

    /** {@code /readyz}'s body, here and on the API's route. */
    static byte[] readyBody(boolean up, String dialect) {
        return Json.bytes(
                Json.object().put("status", up ? "ready" : "store_unreachable").put("store", dialect));
    }

    private boolean answer(Response response, Callback callback, int status, byte[] body) {
        response.setStatus(status);
        response.getHeaders().put(HttpHeader.CONTENT_TYPE, "application/json");
        response.getHeaders().put("Request-Id", ids.next("req"));
        response.write(true, ByteBuffer.wrap(body), callback);
        return true;
    }
}
