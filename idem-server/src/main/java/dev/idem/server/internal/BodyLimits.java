package dev.idem.server.internal;

/**
 * Which body limit a path has, for the answers the HTTP layer gives before a route runs: a body it stopped buffering,
 * or one declared too long to read. The routes check their own limits too; these say the same thing, so a body over
 * a limit gets the same answer however far over it is and however it is framed (a length or chunks).
 */
final class BodyLimits {
    private static final String INGEST_PREFIX = "/in/";
    private static final String BATCH_PATH = "/v1/schedules/batch";
    /** Buffered beyond the ingest limit, so that a body just over it reaches the route and its byte count is named. */
    private static final int INGEST_SLACK = 64 * 1024;

    private BodyLimits() {}

    /**
     * How much of a body to {@code path} the HTTP layer reads before answering {@link #over}: a little over the
     * ingest limit for {@code /in/…} (the unauthenticated route never buffers more), {@code ceiling} elsewhere.
     */
    static long buffered(String path, long ceiling) {
        return ingest(path) ? SourceIngest.MAX_BODY_BYTES + INGEST_SLACK : ceiling;
    }

    /** The answer to a body over {@code path}'s limit. */
    static ApiException over(String path) {
        if (ingest(path)) return ingestTooLarge(null);
        if (BATCH_PATH.equals(path))
            return ApiException.invalid("body_too_large", null, "A batch request body is over 4 MiB");
        return ApiException.invalid("body_too_large", null, "Request body is over 256 KiB");
    }

    /** 413 naming the ingest limit, and the body's size when it is known ({@code bytes} not null). */
    static ApiException ingestTooLarge(Long bytes) {
        return ApiException.tooLarge((bytes == null ? "The body is" : "The body is " + bytes + " bytes,")
                + " over the ingest limit of 1 MiB (" + SourceIngest.MAX_BODY_BYTES + " bytes)");
    }

    private static boolean ingest(String path) {
        return path != null && path.startsWith(INGEST_PREFIX);
    }
}
