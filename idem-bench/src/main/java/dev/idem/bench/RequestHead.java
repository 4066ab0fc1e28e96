package dev.idem.bench;

import java.util.Locale;

/**
 * What the bench's receivers ({@link SocketTransport}, {@link DelayedTransport}) take from one request's header
 * lines: the body's length, whether the client closes after the answer, and the webhook headers the receiver checks.
 * One per request; the two servers differ only in how they read the lines.
 */
final class RequestHead {
    int contentLength;
    boolean close;
    String webhookId;
    String timestamp;
    String signature;
    String scheduledFor;

    /**
     * Reads one header line (without its CRLF): the name is matched ignoring case, name and value are trimmed, a line
     * with no name before a colon is passed over, and a header this class does not need is ignored.
     *
     * @return false when the request has a body these servers cannot read ({@code Transfer-Encoding}, a chunked
     *     body; neither contender sends one); the caller refuses it
     * @throws NumberFormatException when {@code Content-Length} is not a whole number
     */
    boolean header(CharSequence line) {
        // a CharSequence, so the blocking server passes its reused StringBuilder without copying it first
        int colon = indexOfColon(line);
        if (colon <= 0) return true;
        String name = line.subSequence(0, colon).toString().trim().toLowerCase(Locale.ROOT);
        String value = line.subSequence(colon + 1, line.length()).toString().trim();
        switch (name) {
            case "content-length" -> contentLength = Integer.parseInt(value);
            case "connection" -> close = value.equalsIgnoreCase("close");
            case "transfer-encoding" -> {
                return false;
            }
            case "webhook-id" -> webhookId = value;
            case "webhook-timestamp" -> timestamp = value;
            case "webhook-signature" -> signature = value;
            case "idem-scheduled-for" -> scheduledFor = value;
            default -> {}
        }
        return true;
    }

    /** Hands this request and its body to the receiver. */
    void handTo(SocketTransport.Handler handler, byte[] body) {
        handler.handle(webhookId, timestamp, signature, scheduledFor, body);
    }

    private static int indexOfColon(CharSequence line) {
        for (int i = 0; i < line.length(); i++) if (line.charAt(i) == ':') return i;
        return -1;
    }
}
