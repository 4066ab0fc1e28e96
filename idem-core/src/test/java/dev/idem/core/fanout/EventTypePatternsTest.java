package dev.idem.core.fanout;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Collections;
import java.util.List;
import org.junit.jupiter.api.Test;

class EventTypePatternsTest {
    @Test
    void anExactNameMatchesItselfOnly() {
        EventTypePatterns p = EventTypePatterns.of(List.of("invoice.paid"));
        assertThat(p.matches("invoice.paid")).isTrue();
        assertThat(p.matches("invoice.paid.late")).isFalse();
        assertThat(p.matches("invoice")).isFalse();
        assertThat(p.matches("invoice.paidx")).isFalse();
    }

    @Test
    void aPrefixMatchesEveryNameBelowItButNotItself() {
        EventTypePatterns p = EventTypePatterns.of(List.of("invoice.*"));
        assertThat(p.matches("invoice.paid")).isTrue();
        assertThat(p.matches("invoice.item.created")).isTrue();
        assertThat(p.matches("invoice")).isFalse();
        assertThat(p.matches("invoices.paid")).isFalse();
        assertThat(p.matches("report.invoice.paid")).isFalse();
    }

    @Test
    void aStarMatchesEverythingAndPatternsAddUp() {
        assertThat(EventTypePatterns.of(List.of("*")).matches("anything.at.all"))
                .isTrue();
        EventTypePatterns p = EventTypePatterns.of(List.of("invoice.paid", "report.*"));
        assertThat(p.matches("report.daily")).isTrue();
        assertThat(p.matches("invoice.paid")).isTrue();
        assertThat(p.matches("invoice.voided")).isFalse();
    }

    @Test
    void whatIsNeitherANameNorAPrefixIsRefusedWithItsIndex() {
        assertThatThrownBy(() -> EventTypePatterns.of(List.of("invoice.paid", "invoice*")))
                .hasMessageStartingWith("[1]: 'invoice*' is neither");
        for (String bad : List.of("*.paid", "invoice.*.paid", ".paid", "invoice.", "a b", "a/b", "invoice.**", ""))
            assertThat(EventTypePatterns.problem(bad)).as(bad).isPresent();
        assertThatThrownBy(() -> EventTypePatterns.of(List.of())).hasMessageContaining("at least one");
        assertThatThrownBy(() -> EventTypePatterns.of(Collections.nCopies(EventTypePatterns.MAX_PATTERNS + 1, "a")))
                .hasMessageContaining("at most");
    }

    @Test
    void namesAreDotSeparatedPartsThatFitInAPath() {
        for (String ok : List.of("invoice.paid", "push", "pull_request", "charge.dispute.funds-withdrawn", "a:b.c"))
            assertThat(EventType.nameProblem(ok)).as(ok).isEmpty();
        for (String bad : List.of("", "a..b", "a/b", "a b", "é", "x".repeat(EventType.MAX_NAME_LENGTH + 1)))
            assertThat(EventType.nameProblem(bad)).as(bad).isPresent();
    }
}
