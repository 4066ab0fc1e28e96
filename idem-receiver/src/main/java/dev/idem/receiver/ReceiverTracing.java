package dev.idem.receiver;

import java.util.function.Function;

/**
 * Whether and how {@link Receiver#receive} runs in an OpenTelemetry span. The span continues the delivery's
 * {@code traceparent} (or the span already current, when the web framework started one from that header), is
 * named after the messaging conventions' {@code process} operation and carries the inbox outcome as
 * {@code idem.inbox.outcome}: {@code processed}, {@code duplicate}, {@code rejected}, {@code in_progress},
 * {@code unavailable} or {@code failed} (the handler threw or answered non-2xx).
 *
 * <p>The OpenTelemetry API is an optional dependency: without it on the class path {@link #automatic()} is
 * {@link #none()} and no OpenTelemetry class is ever loaded. With it, {@link #automatic()} uses whatever
 * {@code GlobalOpenTelemetry} holds when a request arrives, and costs one volatile read while nothing is set.
 * To use an {@code OpenTelemetry} instance that is not the global one, see {@link OpenTelemetryTracing}.
 */
public abstract class ReceiverTracing {
    private static final String API_CLASS = "io.opentelemetry.api.GlobalOpenTelemetry";

    ReceiverTracing() {}

    /** No spans, ever. */
    public static ReceiverTracing none() {
        return None.INSTANCE;
    }

    /**
     * The default: spans through {@code GlobalOpenTelemetry} when the OpenTelemetry API is on the class path and an
     * SDK has been registered there (by the application, the Java agent or Spring Boot); else {@link #none()}.
     */
    public static ReceiverTracing automatic() {
        return apiPresent() ? OtelReceiverTracing.global() : none();
    }

    /** Runs {@code work} (verify, claim, handler) under this tracing; the receipt's status becomes the outcome. */
    abstract Receipt trace(Function<String, String> headers, Traced work) throws Exception;

    /** The receiver's whole path for one request. */
    @FunctionalInterface
    interface Traced {
        Receipt run() throws Exception;
    }

    static boolean apiPresent() {
        try {
            // initialize=false: only whether the class exists, nothing of OpenTelemetry runs here
            Class.forName(API_CLASS, false, ReceiverTracing.class.getClassLoader());
            return true;
        } catch (ClassNotFoundException | LinkageError e) {
            return false;
        }
    }

    private static final class None extends ReceiverTracing {
        static final None INSTANCE = new None();

        @Override
        Receipt trace(Function<String, String> headers, Traced work) throws Exception {
            return work.run();
        }
    }
}
