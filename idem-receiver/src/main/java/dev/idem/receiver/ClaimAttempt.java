package dev.idem.receiver;

import java.util.Objects;

/**
 * The answer to {@link Inbox#claim}: either a {@link Claim} to work under, or the outcome (DUPLICATE or
 * IN_PROGRESS) that says why not.
 */
public final class ClaimAttempt {
    private final Claim claim;
    private final Outcome refusal;

    private ClaimAttempt(Claim claim, Outcome refusal) {
        this.claim = claim;
        this.refusal = refusal;
    }

    /** A granted claim. */
    public static ClaimAttempt granted(Claim claim) {
        return new ClaimAttempt(Objects.requireNonNull(claim), null);
    }

    /** A refusal: {@code outcome} is DUPLICATE or IN_PROGRESS. */
    public static ClaimAttempt refused(Outcome outcome) {
        if (outcome.status() == Outcome.Status.PROCESSED)
            throw new IllegalArgumentException("a refusal is not PROCESSED");
        return new ClaimAttempt(null, outcome);
    }

    /** Whether the claim was granted. */
    public boolean granted() {
        return claim != null;
    }

    /** The claim; only when {@link #granted()}. */
    public Claim claim() {
        if (claim == null) throw new IllegalStateException("claim was refused: " + refusal.status());
        return claim;
    }

    /** Why the claim was refused; only when not {@link #granted()}. */
    public Outcome refusal() {
        if (refusal == null) throw new IllegalStateException("claim was granted");
        return refusal;
    }
}
