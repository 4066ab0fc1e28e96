package dev.idem.core.recurrence;

/**
 * A recurrence input the user must fix. {@link #param()} names the request field at fault
 * ({@code rrule}, {@code cron}, {@code timezone}, {@code dtstart}, {@code exdates}, {@code until},
 * {@code count}); {@link #code()} is a stable machine-readable reason; the message
 * says what is wrong and how to fix it. The server maps it to a 400 {@code invalid_request_error}.
 */
public final class InvalidRecurrenceException extends IllegalArgumentException {

    private static final long serialVersionUID = 1L;

    private final String param;
    private final String code;

    public InvalidRecurrenceException(String param, String code, String message) {
        super(message);
        this.param = param;
        this.code = code;
    }

    /** The request field at fault. */
    public String param() {
        return param;
    }

    /** Stable reason code, e.g. {@code invalid_rrule}, {@code rule_has_no_occurrences}. */
    public String code() {
        return code;
    }
}
