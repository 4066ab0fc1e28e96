package dev.idem.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import org.junit.jupiter.api.Test;

class DedupKeyTest {
    @Test
    void eachKindOfCreatorHasItsOwnNamespace() {
        List<DedupKey> keys = List.of(
                DedupKey.ofSchedule("evt_1"),
                DedupKey.ofMessage("evt_1"),
                DedupKey.ofInternal(Origin.alert(), "evt_1"),
                DedupKey.ofInternal(Origin.source("src_1"), "evt_1"),
                DedupKey.ofInternal(Origin.source("src_2"), "evt_1"));
        assertThat(keys).doesNotHaveDuplicates();
        assertThat(keys).allSatisfy(k -> assertThat(k.value()).contains("\n").endsWith("evt_1"));
    }

    @Test
    void keysAreStableAcrossVersionsBecauseStoredReservationsHoldThem() {
        assertThat(DedupKey.ofSchedule("a").value()).isEqualTo("dedup\na");
        assertThat(DedupKey.ofMessage("a").value()).isEqualTo("message-dedup\na");
        assertThat(DedupKey.ofInternal(Origin.source("src_1"), "a").value())
                .isEqualTo("internal-dedup\nsource\nsrc_1\na");
        assertThat(DedupKey.ofInternal(Origin.alert(), "a").value()).isEqualTo("internal-dedup\nalert\n\na");
    }

    @Test
    void aKeyWithoutANewlineCouldMeetAnIdempotencyKeyAndIsRefused() {
        assertThatThrownBy(() -> new DedupKey("dedup-a")).isInstanceOf(IllegalArgumentException.class);
    }
}
