package dev.idem.wire;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idem.wire.apisurface.Leaky;
import java.util.List;
import org.junit.jupiter.api.Test;

class ApiSurfaceTest {
    @Test
    void wiresApiIsTheCheckedInListAndExposesNoInternalType() {
        ApiSurface.assertSealed(SignatureCheck.class, ApiSurfaceTest.class);
    }

    @Test
    void theLeakCheckFindsAnInternalTypeInEveryKindOfSignatureButNotInBodies() {
        assertThat(ApiSurface.internalLeaks(List.of(Leaky.class)))
                .containsExactlyInAnyOrder(
                        "dev.idem.wire.apisurface.Leaky implements dev.idem.wire.apisurface.internal.Hidden",
                        "dev.idem.wire.apisurface.Leaky.field dev.idem.wire.apisurface.internal.Hidden",
                        "dev.idem.wire.apisurface.Leaky.<init>(…) takes dev.idem.wire.apisurface.internal.Hidden",
                        "dev.idem.wire.apisurface.Leaky.get(…) returns dev.idem.wire.apisurface.internal.Hidden");
    }

    @Test
    void internalMeansAPackageSegmentNamedInternal() {
        assertThat(ApiSurface.isInternal("dev.idem.receiver.internal.MiniJson")).isTrue();
        assertThat(ApiSurface.isInternal("dev.idem.receiver.internal.sub.X$Y")).isTrue();
        assertThat(ApiSurface.isInternal("dev.idem.internals.X")).isFalse();
        assertThat(ApiSurface.isInternal("dev.idem.receiver.Internal")).isFalse();
    }
}
