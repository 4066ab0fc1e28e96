package dev.idem.receiver.servlet;

import dev.idem.receiver.Inbox;
import dev.idem.receiver.InboxException;
import dev.idem.receiver.JdbcInbox;
import dev.idem.receiver.KeyExtractor;
import dev.idem.receiver.Outcome;
import dev.idem.wire.SignatureCheck;
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
import java.util.Objects;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Verifies, deduplicates and then calls the rest of the chain at most once per key:
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

    private final Verifier verifier;
    private final KeyExtractor keys;
    private final Inbox inbox;
    private final boolean transactional;
    private final boolean storeResponses;
    private final int maxBodyBytes;
    private final ConnectionBinder binder;

    private IdemReceiverFilter(Builder b) {
        this.verifier = b.verifier;
        this.keys = b.keys;
        this.inbox = b.inbox;
        this.transactional = b.transactional == null ? inbox instanceof JdbcInbox : b.transactional;
        if (transactional && !(inbox instanceof JdbcInbox)) {
            throw new IllegalArgumentException("transactional mode needs a JdbcInbox, not " + inbox.getClass().getSimpleName());
        }
        this.storeResponses = b.storeResponses;
        this.maxBodyBytes = b.maxBodyBytes;
        this.binder = b.binder;
    }

    /** Starts a builder; a verifier and an inbox are required. */
    public static Builder builder(Verifier verifier, Inbox inbox) {
        return new Builder(verifier, inbox);
    }

    @Override
    public void doFilter(ServletRequest req, ServletResponse res, FilterChain chain) throws IOException, ServletException {
        if (!(req instanceof HttpServletRequest request) || !(res instanceof HttpServletResponse response)) {
            chain.doFilter(req, res);
            return;
        }
        byte[] body = readBody(request.getInputStream());
        if (body == null) {
            error(response, 413, "BODY_TOO_LARGE", "request body is larger than " + maxBodyBytes + " bytes");
            return;
        }
        Function<String, String> headers = request::getHeader;
        SignatureCheck v = verifier.verify(headers, body);
        if (!v.valid()) {
            log.info("refused webhook with bad signature on {}: {}", request.getRequestURI(), v.reason());
            error(response, 403, "BAD_SIGNATURE", v.reason());
            return;
        }
        String key = keys.extract(headers, body);
        CachedBodyRequest wrapped = new CachedBodyRequest(request, body);
        wrapped.setAttribute(WebhookRequests.KEY, key);
        BufferedResponse buffered = new BufferedResponse(response);
        Outcome outcome;
        try {
            outcome = transactional
                    ? ((JdbcInbox) inbox).process(key, tx -> {
                        wrapped.setAttribute(WebhookRequests.TX, tx);
                        try (AutoCloseable bound = binder.bind(tx)) {
                            return runChain(chain, wrapped, buffered);
                        } finally {
                            wrapped.removeAttribute(WebhookRequests.TX);
                        }
                    })
                    : inbox.execute(key, () -> runChain(chain, wrapped, buffered));
        } catch (NotSuccessful e) {
            log.info("handler answered {} for key {}: rolled back, the sender will retry", buffered.getStatus(), key);
            buffered.writeTo(response);
            return;
        } catch (InboxException e) {
            log.error("inbox failed for key {}", key, e);
            if (!response.isCommitted()) response.reset();
            error(response, 503, "INBOX_UNAVAILABLE", "the inbox could not record this delivery; retry later");
            return;
        } catch (IOException | ServletException | RuntimeException e) {
            if (!response.isCommitted()) response.reset();
            throw e;
        } catch (Exception e) {
            if (!response.isCommitted()) response.reset();
            throw new ServletException(e);
        }
        switch (outcome.status()) {
            case PROCESSED -> buffered.writeTo(response);
            case DUPLICATE -> duplicate(response, outcome);
            case IN_PROGRESS -> {
                response.setHeader("Retry-After", Long.toString(Math.max(1, (outcome.retryAfter().toMillis() + 999) / 1000)));
                error(response, 409, "IN_PROGRESS", "another worker is processing this delivery");
            }
        }
    }

    private String runChain(FilterChain chain, CachedBodyRequest req, BufferedResponse res) throws IOException, ServletException {
        chain.doFilter(req, res);
        if (!res.successful()) throw new NotSuccessful();
        return storeResponses ? new String(res.body(), StandardCharsets.UTF_8) : null;
    }

    private void duplicate(HttpServletResponse response, Outcome outcome) throws IOException {
        response.setStatus(200);
        response.setHeader("Idempotent-Replayed", "true");
        String body = outcome.result() != null ? outcome.result()
                : "{\"duplicate\":true,\"idempotency_key\":" + quote(outcome.key()) + "}";
        boolean json = body.startsWith("{") || body.startsWith("[");
        response.setContentType(json ? "application/json" : "text/plain;charset=utf-8");
        byte[] b = body.getBytes(StandardCharsets.UTF_8);
        response.setContentLength(b.length);
        response.getOutputStream().write(b);
    }

    private static void error(HttpServletResponse response, int status, String code, String message) throws IOException {
        response.setStatus(status);
        response.setContentType("application/json");
        byte[] b = ("{\"error\":{\"code\":\"" + code + "\",\"message\":" + quote(message) + "}}").getBytes(StandardCharsets.UTF_8);
        response.setContentLength(b.length);
        response.getOutputStream().write(b);
    }

    private static String quote(String s) {
        StringBuilder b = new StringBuilder("\"");
        for (char c : String.valueOf(s).toCharArray()) {
            if (c == '"' || c == '\\') b.append('\\').append(c);
            else if (c < 0x20) b.append(String.format("\\u%04x", (int) c));
            else b.append(c);
        }
        return b.append('"').toString();
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
        private final Verifier verifier;
        private final Inbox inbox;
        private KeyExtractor keys = KeyExtractor.standard();
        private Boolean transactional;
        private boolean storeResponses;
        private int maxBodyBytes = 1 << 20;
        private ConnectionBinder binder = ConnectionBinder.none();

        private Builder(Verifier verifier, Inbox inbox) {
            this.verifier = Objects.requireNonNull(verifier, "verifier");
            this.inbox = Objects.requireNonNull(inbox, "inbox");
        }

        /** How the dedup key is found (default {@link KeyExtractor#standard()}). */
        public Builder keys(KeyExtractor keys) {
            this.keys = Objects.requireNonNull(keys, "keys");
            return this;
        }

        /** Run the chain inside the claiming transaction (default: true over a JdbcInbox, else false). */
        public Builder transactional(boolean transactional) {
            this.transactional = transactional;
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

        public IdemReceiverFilter build() {
            return new IdemReceiverFilter(this);
        }
    }
}
