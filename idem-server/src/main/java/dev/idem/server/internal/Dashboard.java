package dev.idem.server.internal;

import io.javalin.http.Context;
import io.javalin.http.Handler;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;

/**
 * The dashboard's static files (page, scripts, style sheet, icon), read from the classpath once. The page holds no data
 * and needs no key: its script asks the API under {@code /v1} with the key the user types in. The policy
 * header lets the page run only its own script and talk only to this origin, so text that slipped into the
 * DOM as markup still could not run or load anything.
 */
final class Dashboard {
    static final String CSP =
            "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self'; "
                    + "base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

    /** The page's scripts, in the order it loads them: the core first, then the views. */
    static final java.util.List<String> SCRIPTS = java.util.List.of(
            "dashboard.js",
            "dashboard-schedules.js",
            "dashboard-dead-letter.js",
            "dashboard-create.js",
            "dashboard-sources.js",
            "dashboard-fanout.js",
            "dashboard-messages.js");

    private Dashboard() {}

    /** Serves {@code dashboard/<file>} as {@code contentType}. */
    static Handler file(String file, String contentType) {
        byte[] bytes = read("dashboard/" + file);
        return ctx -> serve(ctx, bytes, contentType);
    }

    private static void serve(Context ctx, byte[] bytes, String contentType) {
        ctx.header("Content-Security-Policy", CSP);
        ctx.header("X-Content-Type-Options", "nosniff");
        ctx.header("Referrer-Policy", "no-referrer");
        // the files change with the server's version: revalidate rather than run a stale script against a new API
        ctx.header("Cache-Control", "no-cache");
        ctx.status(200).contentType(contentType).result(bytes);
    }

    private static byte[] read(String resource) {
        try (InputStream in = Dashboard.class.getResourceAsStream("/" + resource)) {
            if (in == null)
                throw new IllegalStateException(resource + " is not on the classpath (idem-server/src/main/resources)");
            return in.readAllBytes();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
