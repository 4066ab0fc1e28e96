package dev.idem.core.fanout;

/**
 * A filter or a JSON Schema that cannot be used, and where: {@link #path()} is the dotted path inside it of the key,
 * operator or keyword at fault ({@code "data.amount.$gtee"}, {@code "properties.amount.type"}), empty for the whole.
 * The API answers 400 with the field's name and this path as {@code param}.
 */
public final class InvalidJsonException extends IllegalArgumentException {
    private final String path;

    public InvalidJsonException(String path, String message) {
        super((path.isEmpty() ? "" : path + ": ") + message);
        this.path = path;
    }

    public String path() {
        return path;
    }
}
