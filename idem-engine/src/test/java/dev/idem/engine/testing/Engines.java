package dev.idem.engine.testing;

import dev.idem.engine.EngineConfig;
import java.time.Duration;

/** Engine configurations for tests: quick polls and reaper, private endpoints allowed (the receiver is on loopback). */
public final class Engines {
    private Engines() {}

    public static EngineConfig fast(String nodeId) {
        return EngineConfig.builder()
                .nodeId(nodeId)
                .maxInFlight(2000)
                .pollInterval(Duration.ofMillis(50))
                .reaperInterval(Duration.ofMillis(100))
                .shutdownGrace(Duration.ofSeconds(2))
                .allowPrivateEndpoints(true)
                .build();
    }
}
