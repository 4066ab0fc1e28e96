package dev.idem.engine.testing;

import dev.idem.engine.EngineConfig;
import java.time.Duration;

/** Engine configurations for tests: quick polls and reaper, private endpoints allowed (the receiver is on loopback). */
public final class Engines {
    private Engines() {}

    public static EngineConfig fast(String nodeId) {
        return EngineConfig.defaults(nodeId)
                .withMaxInFlight(2000)
                .withPollInterval(Duration.ofMillis(50))
                .withReaperInterval(Duration.ofMillis(100))
                .withShutdownGrace(Duration.ofSeconds(2))
                .withAllowPrivateEndpoints(true);
    }
}
