package dev.idem.receiver;

/** Thrown when a claim expired and another worker took the key over before this one completed it. */
public final class ClaimLostException extends RuntimeException {
    /** @param key the key whose claim was lost */
    public ClaimLostException(String key) {
        super("claim on key '" + key + "' expired and was taken over by another worker before it was completed;"
                + " make the claim lease longer than the slowest handler");
    }
}
