package dev.idem.client.model;

import java.time.Instant;
import java.util.List;

/**
 * A portal link ({@code pa_…}) minted for one application: hand {@link #url} to your customer (it opens the portal;
 * the token is in its fragment, which no browser sends to a server). Keep it out of logs: {@link #toString()} hides
 * the token and the URL.
 *
 * @param url the link, {@code <public base>/portal#token=pt_…}
 * @param token the link's token, shown only here (Idem keeps only its hash)
 * @param application the application's id
 * @param capabilities what the link grants ({@code view}, {@code manage_endpoints}, {@code replay}, …)
 * @param session the label given to revoke it by, or null
 */
public record PortalAccess(
        String id,
        String url,
        String token,
        String application,
        List<String> capabilities,
        String session,
        Instant createdAt,
        Instant expiresAt) {
    @Override
    public String toString() {
        return "PortalAccess[id=" + id + ", url=…#token=pt_…, application=" + application + ", capabilities="
                + capabilities + ", session=" + session + ", expiresAt=" + expiresAt + "]";
    }
}
