package dev.idem.server.internal;

import dev.idem.core.portal.Capability;
import dev.idem.core.portal.PortalAccess;
import io.javalin.http.Context;
import java.util.Optional;

/**
 * What narrows a request made with a portal session: the link it was opened with (one application, its
 * capabilities). A request made with an API key has none and reaches its whole tenant.
 *
 * @param session the session, or null while the link's own token is being exchanged for one
 */
record PortalScope(PortalAccess access, dev.idem.core.portal.PortalSession session) {
    private static final String ATTR = "idem.portal";

    String applicationId() {
        return access.applicationId();
    }

    boolean grants(Capability c) {
        return access.grants(c);
    }

    void attach(Context ctx) {
        ctx.attribute(ATTR, this);
    }

    /** The request's portal scope, empty for a request made with an API key. */
    static Optional<PortalScope> of(Context ctx) {
        return Optional.ofNullable(ctx.attribute(ATTR));
    }
}
