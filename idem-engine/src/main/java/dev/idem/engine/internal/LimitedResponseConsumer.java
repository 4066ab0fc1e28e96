package dev.idem.engine.internal;

import dev.idem.core.Attempt;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.apache.hc.core5.concurrent.FutureCallback;
import org.apache.hc.core5.http.EntityDetails;
import org.apache.hc.core5.http.Header;
import org.apache.hc.core5.http.HttpResponse;
import org.apache.hc.core5.http.nio.AsyncResponseConsumer;
import org.apache.hc.core5.http.nio.CapacityChannel;
import org.apache.hc.core5.http.protocol.HttpContext;

/**
 * Reads a response keeping only what an attempt records: the status, {@code Retry-After}, {@code Location} and the
 * first {@link Attempt#RESPONSE_BODY_LIMIT} bytes of the body. The rest of the body is read and dropped up to
 * {@value #DRAIN_LIMIT} bytes so the connection can be reused; past that the result is given at once and the exchange
 * fails, which closes the connection instead of reading an endless body. Memory per exchange is bounded by the kept
 * bytes whatever the receiver sends.
 */
final class LimitedResponseConsumer implements AsyncResponseConsumer<LimitedResponseConsumer.Response> {
    static final int DRAIN_LIMIT = 64 * 1024;

    /** What was kept of one response. */
    record Response(int status, String retryAfter, String location, String body) {}

    private final byte[] kept = new byte[Attempt.RESPONSE_BODY_LIMIT];
    private int length;
    private long drained;
    private int status;
    private String retryAfter;
    private String location;
    private FutureCallback<Response> result;
    private final AttemptSpan span;

    /** @param span the attempt's span, told when the response's head arrives; null when untraced */
    LimitedResponseConsumer(AttemptSpan span) {
        this.span = span;
    }

    @Override
    public void consumeResponse(
            HttpResponse response, EntityDetails entity, HttpContext context, FutureCallback<Response> callback) {
        if (span != null) span.firstByte();
        status = response.getCode();
        retryAfter = value(response.getFirstHeader("Retry-After"));
        location = value(response.getFirstHeader("Location"));
        result = callback;
        if (entity == null) callback.completed(response());
    }

    @Override
    public void informationResponse(HttpResponse response, HttpContext context) {}

    @Override
    public void updateCapacity(CapacityChannel channel) throws IOException {
        channel.update(Integer.MAX_VALUE);
    }

    @Override
    public void consume(ByteBuffer src) throws IOException {
        int keep = Math.min(src.remaining(), kept.length - length);
        src.get(kept, length, keep);
        length += keep;
        drained += src.remaining();
        src.position(src.limit());
        if (drained > DRAIN_LIMIT) {
            result.completed(response());
            throw new IOException("response body over " + (DRAIN_LIMIT + kept.length)
                    + " bytes: the connection is dropped, not drained");
        }
    }

    @Override
    public void streamEnd(List<? extends Header> trailers) {
        result.completed(response());
    }

    @Override
    public void failed(Exception cause) {}

    @Override
    public void releaseResources() {}

    private Response response() {
        return new Response(
                status, retryAfter, location, length == 0 ? null : new String(kept, 0, length, StandardCharsets.UTF_8));
    }

    private static String value(Header h) {
        return h == null ? null : h.getValue();
    }
}
