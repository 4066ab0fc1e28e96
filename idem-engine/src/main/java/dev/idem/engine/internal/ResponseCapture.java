package dev.idem.engine.internal;

import java.net.http.HttpResponse;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Flow;

/** Keeps the first bytes of a response body and drains the rest, so the connection can be reused. */
final class ResponseCapture implements HttpResponse.BodySubscriber<byte[]> {
    private final CompletableFuture<byte[]> result = new CompletableFuture<>();
    private final byte[] buffer;
    private int length;

    private ResponseCapture(int limit) {
        this.buffer = new byte[limit];
    }

    static HttpResponse.BodyHandler<byte[]> firstBytes(int limit) {
        return info -> new ResponseCapture(limit);
    }

    @Override
    public CompletionStage<byte[]> getBody() {
        return result;
    }

    @Override
    public void onSubscribe(Flow.Subscription subscription) {
        subscription.request(Long.MAX_VALUE);
    }

    @Override
    public void onNext(List<ByteBuffer> items) {
        for (ByteBuffer b : items) {
            int n = Math.min(b.remaining(), buffer.length - length);
            if (n > 0) {
                b.get(buffer, length, n);
                length += n;
            }
        }
    }

    @Override
    public void onError(Throwable throwable) {
        result.completeExceptionally(throwable);
    }

    @Override
    public void onComplete() {
        result.complete(java.util.Arrays.copyOf(buffer, length));
    }
}
