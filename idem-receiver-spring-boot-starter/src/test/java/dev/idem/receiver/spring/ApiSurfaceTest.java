package dev.idem.receiver.spring;

import dev.idem.wire.ApiSurface;
import org.junit.jupiter.api.Test;

/** The API of the Spring Boot starter is the checked-in list api-surface.txt, and never exposes a type from an internal package. */
class ApiSurfaceTest {
    @Test
    void apiIsTheCheckedInListAndExposesNoInternalType() {
        ApiSurface.assertSealed(IdemReceiverAutoConfiguration.class, ApiSurfaceTest.class);
    }
}
