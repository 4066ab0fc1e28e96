package dev.idem.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

class ReportTest {
    @Test
    void aBurstSizeRunAgainGetsItsOwnLabelSoTheSummaryShowsEachRun() {
        assertThat(Report.burstLabels(List.of(10_000, 10_000, 30_000, 10_000)))
                .containsExactly("burst10000", "burst10000-2", "burst30000", "burst10000-3");
    }

    @Test
    void distinctBurstSizesKeepTheirPlainLabels() {
        assertThat(Report.burstLabels(List.of(200, 10_000))).containsExactly("burst200", "burst10000");
    }
}
