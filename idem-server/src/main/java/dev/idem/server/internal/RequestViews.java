package dev.idem.server.internal;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.idem.core.Attempt;
import dev.idem.core.Delivery;
import dev.idem.core.Schedule;
import dev.idem.core.SecretRotation;
import dev.idem.core.SigningSecrets;
import dev.idem.core.Utf8;
import dev.idem.engine.SentRequest;
import dev.idem.wire.SigningSecret;
import dev.idem.wire.WebhookHeaders;
import java.time.Instant;
import java.util.List;
import java.util.Optional;

/**
 * A delivery's {@code request}: its latest attempt's request rebuilt by the engine's own builder
 * ({@link SentRequest}) from the attempt's number and recorded start, which is the instant the engine signed it at.
 * Nothing of the request is stored, so this is a reconstruction; it is the request that went out unless the
 * schedule's definition was changed after the attempt. The signature headers are recomputed only when the secrets
 * that signed then are known: the current secret (and the previous one during its overlap) sign every attempt since
 * the last rotation; an older attempt was signed by secrets that may no longer be kept, so its signature headers are
 * left out and {@code signature_omitted} says why. The secrets themselves never appear.
 */
final class RequestViews {
    private RequestViews() {}

    /** The {@code request} object, or null when the delivery has no attempt yet. */
    static ObjectNode latest(
            Delivery d, Optional<Schedule> schedule, List<Attempt> attempts, Optional<SigningSecrets> secrets) {
        if (attempts.isEmpty() || schedule.isEmpty()) return null;
        Attempt last = attempts.get(attempts.size() - 1);
        Instant at = last.startedAt();
        Instant rotatedAt = secrets.map(RequestViews::rotatedAt).orElse(null);
        String omitted = null;
        List<SigningSecret> signing = null;
        if (d.ofMessage())
            omitted = "a message's delivery is signed with its endpoint's own secret (" + d.endpointId()
                    + "), which this view does not open";
        else if (secrets.isEmpty()) omitted = "no signing secret exists for this project and mode";
        else if (rotatedAt != null && at.isBefore(rotatedAt))
            omitted = "the attempt predates the signing secret's rotation at " + Json.time(rotatedAt)
                    + "; the secrets that signed it are not all kept";
        else signing = secrets.get().activeAt(at);
        // without the secrets, sign with a throwaway one and drop the signature headers it made
        SentRequest r = SentRequest.of(
                d,
                schedule.get(),
                last.number(),
                signing != null ? signing : List.of(SigningSecret.generate(new java.util.Random(0))),
                at);
        ObjectNode o = Json.object();
        o.put("attempt", last.number());
        o.put("reconstructed", true);
        o.put("method", r.method());
        o.put("url", r.url());
        ObjectNode headers = o.putObject("headers");
        boolean signed = omitted == null;
        r.headers().forEach((k, v) -> {
            if (signed || !isSignature(k)) headers.put(k, v);
        });
        // text as text; bytes that are not (an inbound source's binary event) as base64, and body_encoding says which
        String text = text(r.body());
        o.put("body", text != null ? text : java.util.Base64.getEncoder().encodeToString(r.body()));
        o.put("body_encoding", text != null ? "text" : "base64");
        o.put("signature_omitted", omitted);
        return o;
    }

    /** The bytes as text when they are strict UTF-8, else null. */
    private static String text(byte[] body) {
        return Utf8.decodeOrNull(body);
    }

    private static boolean isSignature(String header) {
        return header.equalsIgnoreCase(WebhookHeaders.WEBHOOK_SIGNATURE)
                || header.equalsIgnoreCase(WebhookHeaders.SCHED_SIGNATURE);
    }

    /**
     * When the current secret took over: its predecessor's (the newest retired) expiry minus the overlap; null when never
     * rotated.
     */
    private static Instant rotatedAt(SigningSecrets s) {
        return s.retired().isEmpty() ? null : s.retired().get(0).expiresAt().minus(SecretRotation.OVERLAP);
    }
}
