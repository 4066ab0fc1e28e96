package dev.idem.engine.internal;

import java.io.IOException;
import org.apache.hc.client5.http.HttpRequestRetryStrategy;
import org.apache.hc.core5.http.HttpRequest;
import org.apache.hc.core5.http.HttpResponse;
import org.apache.hc.core5.http.RequestNotExecutedException;
import org.apache.hc.core5.http.protocol.HttpContext;
import org.apache.hc.core5.util.TimeValue;

/**
 * Resends a request once, at once, only when the client never wrote it: its connection closed (the receiver closed
 * a kept-alive connection) before the request was handed to it ({@link RequestNotExecutedException}). A request
 * that may have been written, even partly, is never resent by the client.
 */
final class NotExecutedRetry implements HttpRequestRetryStrategy {
    @Override
    public boolean retryRequest(HttpRequest request, IOException exception, int execCount, HttpContext context) {
        return execCount <= 1 && exception instanceof RequestNotExecutedException;
    }

    @Override
    public boolean retryRequest(HttpResponse response, int execCount, HttpContext context) {
        return false;
    }

    @Override
    public TimeValue getRetryInterval(HttpResponse response, int execCount, HttpContext context) {
        return TimeValue.ZERO_MILLISECONDS;
    }
}
