package dev.idem.server.internal;

import dev.idem.core.portal.PortalAccess;
import dev.idem.core.portal.PortalSettings;
import dev.idem.core.store.Store;
import io.javalin.config.RoutesConfig;
import io.javalin.http.Context;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.URI;
import java.util.Optional;

/**
 * The customer portal's page (docs/portal.md), read from the classpath once. A link opens {@code /portal#token=pt_…}:
 * the page takes the token from the fragment (which no browser sends to a server), removes it from the address bar,
 * exchanges it for a session kept in the tab, and moves to {@code /portal/a/<link id>}. That second address is served
 * with the policy of the link's project: {@code frame-ancestors} from its portal settings (none by default), so a
 * site the project did not name cannot embed it; the first holds no data and draws nothing but a message. Both run
 * only this origin's own script and style; a logo loads only from the https origin the settings name.
 */
final class PortalPage {
    static final String SCRIPT = "portal.js";
    /** The messages view, a second script so that neither grows past a few hundred lines. */
    static final String MESSAGES_SCRIPT = "portal-messages.js";

    static final String STYLE = "portal.css";
    private static final String POLICY = "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; "
            + "base-uri 'none'; form-action 'none'; ";

    private PortalPage() {}

    static void install(RoutesConfig r, Store store) {
        byte[] page = read("index.html");
        byte[] script = read(SCRIPT);
        byte[] messages = read(MESSAGES_SCRIPT);
        byte[] style = read(STYLE);
        r.get(
                "/portal",
                ctx -> serve(ctx, page, "text/html; charset=utf-8", POLICY + "img-src 'self'; frame-ancestors *"));
        r.get(
                "/portal/a/{access}",
                ctx -> serve(ctx, page, "text/html; charset=utf-8", policyFor(store, ctx.pathParam("access"))));
        r.get(
                "/portal/" + SCRIPT,
                ctx -> serve(ctx, script, "text/javascript; charset=utf-8", POLICY + "frame-ancestors 'none'"));
        r.get(
                "/portal/" + MESSAGES_SCRIPT,
                ctx -> serve(ctx, messages, "text/javascript; charset=utf-8", POLICY + "frame-ancestors 'none'"));
        r.get(
                "/portal/" + STYLE,
                ctx -> serve(ctx, style, "text/css; charset=utf-8", POLICY + "frame-ancestors 'none'"));
    }

    /** The policy of the link's project; an unknown link gets the strictest (it will only say the link is unknown). */
    static String policyFor(Store store, String accessId) {
        Optional<PortalSettings> settings = store.inReadTransaction(tx -> tx.portal()
                .findAccess(accessId)
                .map(PortalAccess::tenant)
                .map(t -> tx.portal().settings(t)));
        String img = "img-src 'self'";
        String ancestors = "frame-ancestors 'none'";
        if (settings.isPresent()) {
            PortalSettings s = settings.get();
            if (s.logoUrl() != null) {
                // host and port only: the settings' check refused anything else in the URL's authority
                URI logo = URI.create(s.logoUrl());
                img += " https://" + logo.getHost() + (logo.getPort() < 0 ? "" : ":" + logo.getPort());
            }
            if (!s.frameAncestors().isEmpty()) ancestors = "frame-ancestors " + String.join(" ", s.frameAncestors());
        }
        return POLICY + img + "; " + ancestors;
    }

    private static void serve(Context ctx, byte[] bytes, String contentType, String policy) {
        ctx.header("Content-Security-Policy", policy);
        ctx.header("X-Content-Type-Options", "nosniff");
        ctx.header("Referrer-Policy", "no-referrer");
        ctx.header("Cache-Control", "no-cache");
        ctx.status(200).contentType(contentType).result(bytes);
    }

    private static byte[] read(String file) {
        String resource = "portal/" + file;
        try (InputStream in = PortalPage.class.getResourceAsStream("/" + resource)) {
            if (in == null)
                throw new IllegalStateException(resource + " is not on the classpath (idem-server/src/main/resources)");
            return in.readAllBytes();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
