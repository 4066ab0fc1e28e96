package dev.idem.receiver.servlet;

import dev.idem.receiver.Inbox;
import dev.idem.receiver.JdbcInbox;
import dev.idem.receiver.KeyExtractor;
import dev.idem.receiver.Receipt;
import dev.idem.receiver.Receiver;
import dev.idem.receiver.Verifier;
import dev.idem.receiver.internal.BufferedResponse;
import dev.idem.receiver.internal.CachedBodyRequest;
import jakarta.servlet.Filter;
import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.ServletRequest;
import jakarta.servlet.ServletResponse;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.util.Map;
import java.util.Objects;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The {@link Receiver} as a Servlet filter: verifies, deduplicates and then calls the rest of the chain at most
 * once per key:
 * <ul>
 *   <li>bad or missing signature: 403 {@code {"error":{"code":"BAD_SIGNATURE",…}}}, the chain never runs;</li>
 *   <li>duplicate: 200 (with the first response's body when {@code storeResponses}), header
 *       {@code Idempotent-Replayed: true}, the chain never runs;</li>
 *   <li>key held by another worker's live claim: 409 {@code IN_PROGRESS} with {@code Retry-After};</li>
 *   <li>otherwise the chain runs; its response is buffered and sent only after the claim committed. A
 *       non-2xx answer or an exception rolls the claim back, so the sender's retry does the work.</li>
 * </ul>
 * Over a {@link JdbcInbox} in transactional mode (the default there), the chain runs inside the claiming
 * transaction: get it with {@link WebhookRequests#transaction}. Other inboxes use claim → work → mark.
 */
public final class IdemReceiverFilter implements Filter {
    private static final Logger log = LoggerFactory.getLogger(IdemReceiverFilter.class);

    private final Receiver receiver;
    private final boolean storeResponses;
    private final int maxBodyBytes;
    private final ConnectionBinder binder;

    private IdemReceiverFilter(Builder b) {
        this.receiver = b.receiver != null ? b.receiver : b.receiverBuilder.build();
        this.storeResponses = b.storeResponses;
        this.maxBodyBytes = b.maxBodyBytes;
        this.binder = b.binder;
    }

    /** Starts a builder; a verifier and an inbox are required. */
    public static Builder builder(Verifier verifier, Inbox inbox) {
        return new Builder(Receiver.builder(verifier, inbox), null);
    }

    /** Starts a builder around a configured {@link Receiver} (keys and transactional mode are set there). */
    public static Builder builder(Receiver receiver) {
        return new Builder(null, Objects.requireNonNull(receiver, "receiver"));
    }

    @Override
    public void doFilter(ServletRequest req, ServletResponse res, FilterChain chain)
            throws IOException, ServletException {
        if (!(req instanceof HttpServletRequest request) || !(res instanceof HttpServletResponse response)) {
            chain.doFilter(req, res);
            return;
        }
        byte[] body = readBody(request.getInputStream());
        if (body == null) {
            write(
                    response,
                    Receipt.Answer.error(
                            413, "BODY_TOO_LARGE", "request body is larger than " + maxBodyBytes + " bytes", Map.of()));
            return;
        }
        CachedBodyRequest wrapped = new CachedBodyRequest(request, body);
        BufferedResponse buffered = new BufferedResponse(response);
        Receipt receipt;
        try {
            receipt = receiver.receive(request::getHeader, body, delivery -> {
                wrapped.setAttribute(WebhookRequests.KEY, delivery.key());
                Connection tx = delivery.tx();
                if (tx == null) return runChain(chain, wrapped, buffered);
                wrapped.setAttribute(WebhookRequests.TX, tx);
                try (AutoCloseable bound = binder.bind(tx)) {
                    return runChain(chain, wrapped, buffered);
                } finally {
                    wrapped.removeAttribute(WebhookRequests.TX);
                }
            });
        } catch (NotSuccessful e) {
            log.info(
                    "handler answered {} for key {}: rolled back, the sender will retry",
                    buffered.getStatus(),
                    WebhookRequests.key(wrapped));
            buffered.writeTo(response);
            return;
        } catch (IOException | ServletException | RuntimeException e) {
            if (!response.isCommitted()) response.reset();
            throw e;
        } catch (Exception e) {
            if (!response.isCommitted()) response.reset();
            throw new ServletException(e);
        }
        switch (receipt.status()) {
            case PROCESSED -> buffered.writeTo(response);
            case REJECTED -> {
                log.info("refused webhook with bad signature on {}: {}", request.getRequestURI(), receipt.reason());
                write(response, receipt.answer());
            }
            case UNAVAILABLE -> {
                log.error("inbox failed for key {}", receipt.key(), receipt.failure());
                if (!response.isCommitted()) response.reset();
                write(response, receipt.answer());
            }
            case DUPLICATE, IN_PROGRESS -> write(response, receipt.answer());
        }
    }

    private String runChain(FilterChain chain, CachedBodyRequest req, BufferedResponse res)
            throws IOException, ServletException {
        chain.doFilter(req, res);
        if (!res.successful()) throw new NotSuccessful();
        return storeResponses ? new String(res.body(), StandardCharsets.UTF_8) : null;
    }

    private static void write(HttpServletResponse response, Receipt.Answer answer) throws IOException {
        response.setStatus(answer.status());
        for (Map.Entry<String, String> h : answer.headers().entrySet()) response.setHeader(h.getKey(), h.getValue());
        byte[] b = answer.body();
        if (answer.contentType() != null) response.setContentType(answer.contentType());
        response.setContentLength(b.length);
        response.getOutputStream().write(b);
    }

    private byte[] readBody(InputStream in) throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        byte[] buf = new byte[8192];
        int n;
        while ((n = in.read(buf)) >= 0) {
            if (out.size() + n > maxBodyBytes) return null;
            out.write(buf, 0, n);
        }
        return out.toByteArray();
    }

    /** The handler answered non-2xx: roll the claim back and pass its answer on. */
    private static final class NotSuccessful extends RuntimeException {
        NotSuccessful() {
            super(null, null, false, false);
        }
    }

    /** Builds an {@link IdemReceiverFilter}. */
    public static final class Builder {
        private final Receiver.Builder receiverBuilder;
        private final Receiver receiver;
        private boolean storeResponses;
        private int maxBodyBytes = 1 << 20;
        private ConnectionBinder binder = ConnectionBinder.none();

        private Builder(Receiver.Builder receiverBuilder, Receiver receiver) {
            this.receiverBuilder = receiverBuilder;
            this.receiver = receiver;
        }

        /** How the dedup key is found (default {@link KeyExtractor#standard()}). */
        public Builder keys(KeyExtractor keys) {
            receiverBuilder("keys").keys(keys);
            return this;
        }

        /** Run the chain inside the claiming transaction (default: true over a JdbcInbox, else false). */
        public Builder transactional(boolean transactional) {
            receiverBuilder("transactional").transactional(transactional);
            return this;
        }

        /** Keep each first response body and answer duplicates with it (default false). */
        public Builder storeResponses(boolean storeResponses) {
            this.storeResponses = storeResponses;
            return this;
        }

        /** Larger bodies get 413 (default 1 MiB; Idem sends at most 256 KiB). */
        public Builder maxBodyBytes(int maxBodyBytes) {
            if (maxBodyBytes < 1) throw new IllegalArgumentException("maxBodyBytes must be positive");
            this.maxBodyBytes = maxBodyBytes;
            return this;
        }

        /** Binds the transaction for a framework while the chain runs (default: none). */
        public Builder connectionBinder(ConnectionBinder binder) {
            this.binder = Objects.requireNonNull(binder, "binder");
            return this;
        }

        /** @throws IllegalArgumentException when transactional mode is asked of an inbox that cannot do it */
        public IdemReceiverFilter build() {
            return new IdemReceiverFilter(this);
        }

        private Receiver.Builder receiverBuilder(String setting) {
            if (receiverBuilder == null) {
                throw new IllegalStateException(setting + " is set on the Receiver this filter was built from");
            }
            return receiverBuilder;
        }
    }
}
