package dev.idem.receiver;

import dev.idem.wire.SignatureCheck;
import java.sql.Connection;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Function;

/**
 * The receiver's request path without any web framework: verify the signature over the raw body → find the
 * dedup key → claim it in the inbox → run the handler at most once per key → say what to answer. The Servlet
 * filter, the Spring Boot starter and {@code idem listen} are thin adapters around it; use it directly from any
 * other HTTP stack (read the body, call {@link #receive}, write {@link Receipt#answer()}).
 *
 * <p>Over a {@link TransactionalInbox} ({@link JdbcInbox}) the handler runs, by default, inside the transaction
 * that claims the key ({@link Delivery#transaction()}); otherwise claim → work → mark. Immutable and thread-safe.
 */
public final class Receiver {
    private final Verifier verifier;
    private final KeyExtractor keys;
    private final Inbox inbox;
    private final boolean transactional;
    private final ReceiverTracing tracing;

    private Receiver(Builder b) {
        this.verifier = b.verifier;
        this.keys = b.keys;
        this.inbox = b.inbox;
        this.transactional = b.transactional == null ? inbox instanceof TransactionalInbox : b.transactional;
        this.tracing = b.tracing;
        if (transactional && !(inbox instanceof TransactionalInbox)) {
            throw new IllegalArgumentException("transactional mode needs a JdbcInbox, not "
                    + inbox.getClass().getSimpleName());
        }
    }

    /** Starts a builder; a verifier and an inbox are required. */
    public static Builder builder(Verifier verifier, Inbox inbox) {
        return new Builder(verifier, inbox);
    }

    /**
     * Handles one request.
     *
     * @param headers looks a header up by name, case-insensitively; null when absent
     * @param rawBody the body exactly as received
     * @param handler the application's work, called at most once per key and only for a valid signature
     * @return what happened and what to answer; a failing inbox is {@link Receipt.Status#UNAVAILABLE}, not thrown
     * @throws Exception what the handler threw, after its claim (and, in transactional mode, its writes) rolled back
     */
    public Receipt receive(Function<String, String> headers, byte[] rawBody, Handler handler) throws Exception {
        Objects.requireNonNull(handler, "handler");
        return tracing.trace(headers, () -> receiveUntraced(headers, rawBody, handler));
    }

    private Receipt receiveUntraced(Function<String, String> headers, byte[] rawBody, Handler handler)
            throws Exception {
        SignatureCheck check = verifier.verify(headers, rawBody);
        // the key of a refused request too: listeners log it, and it costs at most one hash of the body
        String key = keys.extract(headers, rawBody);
        if (!check.valid()) return Receipt.rejected(key, check.reason());
        try {
            Outcome outcome = transactional
                    ? ((TransactionalInbox) inbox).process(key, tx -> handler.handle(new Delivery(key, tx)))
                    : inbox.execute(key, () -> handler.handle(new Delivery(key, null)));
            return Receipt.of(outcome);
        } catch (InboxException e) {
            return Receipt.unavailable(key, e);
        }
    }

    /** The inbox keys are claimed in. */
    public Inbox inbox() {
        return inbox;
    }

    /** Whether handlers run inside the claiming transaction. */
    public boolean transactional() {
        return transactional;
    }

    /** The application's work for one verified, first-seen delivery. */
    @FunctionalInterface
    public interface Handler {
        /**
         * Throw to refuse the delivery: the claim (and, in transactional mode, every write on the transaction)
         * rolls back and the sender's retry does the work.
         *
         * @return a result kept with the key and handed to duplicates (e.g. a response body), or null
         */
        String handle(Delivery delivery) throws Exception;
    }

    /**
     * One delivery being handled.
     *
     * @param key the dedup key
     * @param tx the claiming transaction in transactional mode, else null; use {@link #transaction()}
     */
    public record Delivery(String key, Connection tx) {
        /**
         * The transaction in which the key was claimed: write through it so the writes and the claim commit or roll
         * back together; do not commit, roll back or close it. Empty unless the receiver is transactional.
         */
        public Optional<Connection> transaction() {
            return Optional.ofNullable(tx);
        }
    }

    /** Builds a {@link Receiver}. */
    public static final class Builder {
        private final Verifier verifier;
        private final Inbox inbox;
        private KeyExtractor keys = KeyExtractor.standard();
        private Boolean transactional;
        private ReceiverTracing tracing = ReceiverTracing.automatic();

        private Builder(Verifier verifier, Inbox inbox) {
            this.verifier = Objects.requireNonNull(verifier, "verifier");
            this.inbox = Objects.requireNonNull(inbox, "inbox");
        }

        /** How the dedup key is found (default {@link KeyExtractor#standard()}). */
        public Builder keys(KeyExtractor keys) {
            this.keys = Objects.requireNonNull(keys, "keys");
            return this;
        }

        /** Run handlers inside the claiming transaction (default: true over a {@link TransactionalInbox}, else false). */
        public Builder transactional(boolean transactional) {
            this.transactional = transactional;
            return this;
        }

        /**
         * Whether each request runs in a span continuing the delivery's {@code traceparent} (default
         * {@link ReceiverTracing#automatic()}: when the OpenTelemetry API is on the class path and an SDK is
         * registered globally).
         */
        public Builder tracing(ReceiverTracing tracing) {
            this.tracing = Objects.requireNonNull(tracing, "tracing");
            return this;
        }

        /** @throws IllegalArgumentException when transactional mode is asked of an inbox that cannot do it */
        public Receiver build() {
            return new Receiver(this);
        }
    }
}
