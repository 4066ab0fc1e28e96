package dev.idem.receiver.servlet;

import jakarta.servlet.ServletRequest;
import java.sql.Connection;
import java.util.Optional;

/** What {@link IdemReceiverFilter} tells the handler about a verified webhook request. */
public final class WebhookRequests {
    static final String KEY = WebhookRequests.class.getName() + ".key";
    static final String TX = WebhookRequests.class.getName() + ".transaction";

    private WebhookRequests() {}

    /** The dedup key of this request, or null when the filter did not handle it. */
    public static String key(ServletRequest request) {
        return (String) request.getAttribute(KEY);
    }

    /**
     * The transaction in which the key was claimed: write through it so the writes and the claim commit or
     * roll back together. Do not commit, roll back or close it. Empty unless the filter runs in transactional
     * mode over a {@code JdbcInbox}.
     */
    public static Optional<Connection> transaction(ServletRequest request) {
        return Optional.ofNullable((Connection) request.getAttribute(TX));
    }
}
