package dev.idem.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Instant;
import org.junit.jupiter.api.Test;

class DedupClaimTest {
    private static final Instant T0 = Instant.parse("2030-01-01T00:00:00Z");

    @Test
    void aDedupClaimsKeyMustContainANewlineSoNoIdempotencyKeyHeaderCanMeetIt() {
        Tenant tenant = new Tenant("prj_a", Mode.TEST);
        assertThat(new DedupClaim(tenant, "dedup\nevt_1", "sch_1", T0).key()).isEqualTo("dedup\nevt_1");
        assertThatThrownBy(() -> new DedupClaim(tenant, "evt_1", "sch_1", T0))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("must contain a newline");
    }
}
