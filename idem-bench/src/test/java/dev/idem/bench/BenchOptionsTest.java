package dev.idem.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.lang.reflect.RecordComponent;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

class BenchOptionsTest {
    /** Every option with a value unlike its default, the component it sets, and what that component becomes. */
    static Stream<Arguments> everyOption() {
        return Stream.of(
                Arguments.of(
                        "--jdbc", "jdbc:postgresql://10.0.0.5:5433/", "jdbcBase", "jdbc:postgresql://10.0.0.5:5433/"),
                Arguments.of("--user", "bench", "user", "bench"),
                Arguments.of("--password", "secret", "password", "secret"),
                Arguments.of("--db", "other_bench", "dbPrefix", "other_bench"),
                Arguments.of("--warmup", "1_000", "warmup", 1_000),
                Arguments.of("--bursts", "1_000, 20000", "bursts", List.of(1_000, 20_000)),
                Arguments.of("--rate", "250", "steadyRate", 250),
                Arguments.of("--seconds", "0", "steadySeconds", 0),
                Arguments.of("--only", "both", "contenders", List.of("idem", "db-scheduler")),
                Arguments.of("--wire", "0", "wireRequests", 0),
                Arguments.of("--insert-threads", "3", "insertThreads", 3),
                Arguments.of("--idem-batch", "100", "idemBatch", 100),
                Arguments.of("--idem-max-in-flight", "64", "idemMaxInFlight", 64),
                Arguments.of("--idem-pool", "4", "idemPool", 4),
                Arguments.of("--receiver-threads", "2", "receiverThreads", 2),
                Arguments.of("--receiver", "jdk", "jdkReceiver", true),
                Arguments.of("--slow", "0", "slowDue", 0),
                Arguments.of("--slow-ms", "100", "slowMillis", 100),
                Arguments.of("--hanging", "7", "hangingDue", 7),
                Arguments.of("--healthy-rate", "3", "healthyRate", 3),
                Arguments.of("--nodes", "2", "nodes", 2),
                Arguments.of("--same-host", "5", "sameHostDue", 5));
    }

    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("everyOption")
    void eachOptionSetsItsOwnComponentAndLeavesTheOthersAtTheirDefaults(
            String option, String value, String component, Object expected) {
        Map<String, Object> defaults = components(BenchOptions.defaults());
        Map<String, Object> parsed = components(BenchOptions.parse(new String[] {option, value}));

        assertThat(parsed.get(component)).isEqualTo(expected);
        defaults.remove(component);
        parsed.remove(component);
        assertThat(parsed).isEqualTo(defaults);
    }

    @Test
    void everyComponentHasAnOption() {
        Set<String> set = everyOption().map(a -> (String) a.get()[2]).collect(Collectors.toSet());
        assertThat(set).isEqualTo(components(BenchOptions.defaults()).keySet());
    }

    @Test
    void theDefaultsAreTheOnesTheHelpTextStates() {
        BenchOptions o = BenchOptions.defaults();

        assertThat(o.jdbcBase()).isEqualTo("jdbc:postgresql://127.0.0.1:5432/");
        assertThat(o.user()).isEqualTo("postgres");
        assertThat(o.password()).isNull();
        assertThat(o.dbPrefix()).isEqualTo("idem_bench");
        assertThat(o.warmup()).isEqualTo(30_000);
        assertThat(o.bursts()).containsExactly(10_000, 100_000);
        assertThat(o.steadyRate()).isEqualTo(1_000);
        assertThat(o.steadySeconds()).isEqualTo(30);
        assertThat(o.contenders()).containsExactly("idem", "db-scheduler", "db-scheduler+apache");
        assertThat(o.wireRequests()).isEqualTo(20_000);
        assertThat(o.insertThreads()).isEqualTo(4);
        assertThat(o.idemBatch()).isEqualTo(500);
        assertThat(o.idemMaxInFlight()).isEqualTo(10_000);
        assertThat(o.idemPool()).isEqualTo(10);
        assertThat(o.receiverThreads()).isEqualTo(16);
        assertThat(o.jdkReceiver()).isFalse();
        assertThat(o.slowDue()).isEqualTo(5_000);
        assertThat(o.slowMillis()).isEqualTo(250);
        assertThat(o.hangingDue()).isEqualTo(1_000);
        assertThat(o.healthyRate()).isEqualTo(20);
        assertThat(o.nodes()).isEqualTo(1);
        assertThat(o.sameHostDue()).isZero();
        assertThat(BenchOptions.parse(new String[0])).isEqualTo(o);
    }

    @Test
    void quickCutsEverySizeDownAndKeepsTheRest() {
        Map<String, Object> expected = components(BenchOptions.defaults());
        expected.putAll(Map.of(
                "warmup", 200,
                "bursts", List.of(200),
                "steadyRate", 100,
                "steadySeconds", 2,
                "wireRequests", 200,
                "insertThreads", 2,
                "receiverThreads", 8,
                "slowDue", 200,
                "hangingDue", 50));

        assertThat(components(BenchOptions.parse(new String[] {"--quick"}))).isEqualTo(expected);
        expected.put("dbPrefix", "smoke_db");
        assertThat(components(BenchOptions.smoke("smoke_db"))).isEqualTo(expected);
    }

    @Test
    void quickAppliesFirstWhereverItStandsSoTheOtherOptionsOverrideIt() {
        BenchOptions o = BenchOptions.parse(new String[] {"--warmup", "7", "--db", "mine", "--quick"});

        assertThat(o.warmup()).isEqualTo(7);
        assertThat(o.dbPrefix()).isEqualTo("mine");
        assertThat(o.bursts()).containsExactly(200);
    }

    @Test
    void aLaterValueOfTheSameOptionWins() {
        assertThat(BenchOptions.parse(new String[] {"--nodes", "2", "--nodes", "3"})
                        .nodes())
                .isEqualTo(3);
    }

    @Test
    void onlyReadsNamesIgnoringCaseAndAcceptsAListOrNone() {
        assertThat(BenchOptions.parse(new String[] {"--only", "ALL"}).contenders())
                .isEqualTo(BenchOptions.ALL);
        assertThat(BenchOptions.parse(new String[] {"--only", "none"}).contenders())
                .isEmpty();
        assertThat(BenchOptions.parse(new String[] {"--only", "Idem, db-scheduler+apache"})
                        .contenders())
                .containsExactly("idem", "db-scheduler+apache");
    }

    @Test
    void aBadValueIsAnErrorNamingTheOptionAndTheTextGiven() {
        Map<String[], String> errors = new LinkedHashMap<>();
        errors.put(new String[] {"--warmup", "-1"}, "--warmup must be at least 0, got -1");
        errors.put(new String[] {"--idem-pool", "1"}, "--idem-pool must be at least 2, got 1");
        errors.put(new String[] {"--rate", "fast"}, "--rate takes a whole number, got 'fast'");
        errors.put(new String[] {"--bursts", "100,0"}, "--bursts must be at least 1, got 0");
        errors.put(new String[] {"--receiver", "tcp"}, "--receiver takes socket or jdk, got 'tcp'");
        errors.put(
                new String[] {"--only", "idem,quartz"},
                "--only takes all, both, none or a comma list of [idem, db-scheduler, db-scheduler+apache],"
                        + " got 'idem,quartz'");
        errors.forEach((args, message) -> assertThatThrownBy(() -> BenchOptions.parse(args))
                .as(String.join(" ", args))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage(message));
    }

    @Test
    void anUnknownOptionOrAMissingValueIsAnErrorFollowedByTheHelpText() {
        assertThatThrownBy(() -> BenchOptions.parse(new String[] {"--speed", "9"}))
                .hasMessage("unknown option --speed\n" + BenchOptions.usage());
        assertThatThrownBy(() -> BenchOptions.parse(new String[] {"--rate", "9", "--nodes"}))
                .hasMessage("option --nodes needs a value\n" + BenchOptions.usage());
    }

    @Test
    void helpAnswersWithTheHelpTextAlone() {
        for (String help : new String[] {"--help", "-h"})
            assertThatThrownBy(() -> BenchOptions.parse(new String[] {"--nodes", "2", help}))
                    .hasMessage(BenchOptions.usage());
    }

    @Test
    void theListsCannotBeChangedAfterParsing() {
        BenchOptions o = BenchOptions.parse(new String[] {"--bursts", "5,6", "--only", "idem"});

        assertThatThrownBy(() -> o.bursts().add(7)).isInstanceOf(UnsupportedOperationException.class);
        assertThatThrownBy(() -> o.contenders().clear()).isInstanceOf(UnsupportedOperationException.class);
    }

    /** The record's components by name, in declaration order. */
    private static Map<String, Object> components(BenchOptions options) {
        Map<String, Object> out = new LinkedHashMap<>();
        for (RecordComponent c : BenchOptions.class.getRecordComponents()) {
            try {
                out.put(c.getName(), c.getAccessor().invoke(options));
            } catch (ReflectiveOperationException e) {
                throw new AssertionError(c.getName(), e);
            }
        }
        return out;
    }
}
