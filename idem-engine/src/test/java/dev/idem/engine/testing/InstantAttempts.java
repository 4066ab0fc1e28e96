package dev.idem.engine.testing;

import dev.idem.core.store.DeliveryQueue.Claim;
import dev.idem.engine.internal.AttemptResult;
import dev.idem.engine.internal.Attempts;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;

/**
 * Attempts that "send" by handing the claim to {@code onSend} and answer 200 at once, leaving the recording to
 * {@code onSend} too: a dispatcher tested without HTTP.
 */
public final class InstantAttempts implements Attempts {
    private final Consumer<Claim> onSend;

    public InstantAttempts(Consumer<Claim> onSend) {
        this.onSend = onSend;
    }

    @Override
    public CompletableFuture<Sent> send(Claim claim, Duration timeout) {
        onSend.accept(claim);
        return CompletableFuture.completedFuture(Sent.answered(new AttemptResult(
                java.time.Instant.now(), 0, 200, null, null, Optional.empty(), true, AttemptResult.Congestion.ANSWER)));
    }

    @Override
    public CompletableFuture<Void> record(Claim claim, AttemptResult result) {
        return CompletableFuture.completedFuture(null);
    }
}
