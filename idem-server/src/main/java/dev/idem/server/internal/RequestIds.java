package dev.idem.server.internal;

import dev.idem.core.IdGenerator;
import io.javalin.http.Context;

/** Gives every request a {@code req_…} id, echoed in the {@code Request-Id} header and in errors. */
final class RequestIds {
    private static final String ATTR = "idem.requestId";

    private RequestIds() {}

    public static void assign(Context ctx, IdGenerator ids) {
        String id = ids.next("req");
        ctx.attribute(ATTR, id);
        ctx.header("Request-Id", id);
    }

    public static String of(Context ctx) {
        String id = ctx.attribute(ATTR);
        return id == null ? "req_unknown" : id;
    }
}
