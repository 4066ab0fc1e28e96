package dev.idem.engine;

import dev.idem.core.Delivery;
import dev.idem.core.Schedule;
import dev.idem.engine.internal.DeliveryRequest;
import dev.idem.engine.internal.RequestBuilder;
import dev.idem.wire.SigningSecret;
import java.time.Instant;
import java.util.List;
import java.util.Map;

/**
 * The HTTP request of one attempt, rebuilt by the very code the engine signs and sends with: given the attempt's
 * number, its recorded start (the instant the engine signed it at) and the secrets that were signing then, the
 * method, URL, headers and body are the bytes that went out, provided the schedule's definition has not been
 * changed since.
 *
 * @param method always {@code POST}
 * @param headers in the order they are sent
 */
public record SentRequest(String method, String url, Map<String, String> headers, byte[] body) {
    private static final RequestBuilder BUILDER = new RequestBuilder();

    /**
     * @param attempt the attempt's 1-based number
     * @param secrets the secrets signing at {@code startedAt}, current first
     * @param startedAt the attempt's recorded start
     */
    public static SentRequest of(
            Delivery delivery, Schedule schedule, int attempt, List<SigningSecret> secrets, Instant startedAt) {
        DeliveryRequest r = BUILDER.build(delivery, schedule, attempt, secrets, startedAt);
        return new SentRequest("POST", r.endpoint(), r.headers(), r.body());
    }
}
