package dev.idem.server.internal;

import io.javalin.http.Context;

/** Stripe-style cursor pagination parameters. */
final class Pagination {
    static final int DEFAULT_LIMIT = 10;
    static final int MAX_LIMIT = 100;

    private Pagination() {}

    static int limit(Context ctx) {
        String v = ctx.queryParam("limit");
        if (v == null || v.isEmpty()) return DEFAULT_LIMIT;
        try {
            int n = Integer.parseInt(v);
            if (n >= 1 && n <= MAX_LIMIT) return n;
        } catch (NumberFormatException ignored) {
            // answered below
        }
        throw ApiException.invalid(
                "parameter_out_of_range", "limit", "limit must be an integer between 1 and " + MAX_LIMIT);
    }

    static String startingAfter(Context ctx) {
        String v = ctx.queryParam("starting_after");
        return v == null || v.isEmpty() ? null : v;
    }
}
