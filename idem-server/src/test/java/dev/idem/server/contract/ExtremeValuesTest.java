package dev.idem.server.contract;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idem.store.testing.TestStores;
import java.nio.file.Path;
import java.time.Clock;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Dates and times at the edges of what java.time parses (found by the fuzzer): each is either accepted
 * or a 400, never a 500, on create and on PATCH, and a refusal writes nothing. Endpoints are a closed
 * port on 127.0.0.1: whatever is accepted and falls due goes nowhere.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class ExtremeValuesTest {
    @TempDir
    static Path dir;

    ContractServer node;
    StoreRows rows;
    static final String ENDPOINT = "http://127.0.0.1:9/extreme";

    @BeforeAll
    void start() {
        node = ContractServer.start(TestStores.sqlite(dir, Clock.systemUTC()), dir, true, true, 0);
        rows = new StoreRows(dir);
    }

    @AfterAll
    void stop() {
        if (node != null) node.close();
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(
            strings = {
                "\"fire_at\":\"0000-01-01T00:00:00Z\"",
                "\"fire_at\":\"1000-01-01T00:00:00Z\"",
                "\"fire_at\":\"-292275055-05-16T16:47:04.192Z\"",
                "\"fire_at\":\"+999999999-12-31T23:59:59Z\"",
                "\"fire_at\":\"1969-12-31T23:59:59.999Z\"",
                "\"fire_at\":\"2035-01-01T00:00:00-18:00\"",
                "\"rrule\":\"FREQ=DAILY\",\"until\":\"-999999999-01-01T00:00:00Z\"",
                "\"rrule\":\"FREQ=DAILY\",\"until\":\"-999999999-01-01T00:00:00\"",
                "\"rrule\":\"FREQ=YEARLY\",\"dtstart\":\"-999999999-01-01T00:00:00\"",
                "\"rrule\":\"FREQ=YEARLY\",\"dtstart\":\"+999999999-12-31T23:59:59\"",
                "\"rrule\":\"FREQ=YEARLY\",\"dtstart\":\"0000-01-01T00:00:00\"",
                "\"rrule\":\"FREQ=SECONDLY\",\"dtstart\":\"-999999999-01-01T00:00:00\",\"count\":1000000",
                "\"rrule\":\"FREQ=DAILY\",\"exdates\":[\"-999999999-01-01T00:00:00\",\"+999999999-12-31T23:59:59\"]",
                "\"rrule\":\"FREQ=DAILY;UNTIL=99991231T235959Z\"",
                "\"rrule\":\"FREQ=DAILY;UNTIL=00010101T000000Z\"",
                "\"cron\":\"* * * * *\",\"until\":\"-999999999-01-01T00:00:00Z\"",
                "\"delay\":\"3650d\"",
                "\"delay\":\"PT87600H\"",
                "\"delay\":\"999999999d\"",
                "\"delay\":\"P106751991167300D\"",
                "\"retry\":{\"max_age\":\"PT2562047788015215H\"}",
                "\"timeout\":\"PT2562047788015215H\"",
            })
    void anExtremeTimeIsAcceptedOrA400NeverA500(String fields) {
        check(fields);
    }

    /**
     * Found by the fuzzer: these pass validation and overflow {@code Instant.toEpochMilli()} where the store
     * writes the timing (TimingCodec.write), a 500 on create and on PATCH.
     */
    @ParameterizedTest(name = "{0}")
    @ValueSource(
            strings = {
                "\"fire_at\":\"-999999999-01-01T00:00:00Z\"",
                "\"rrule\":\"FREQ=DAILY\",\"until\":\"+999999999-12-31T23:59:59Z\"",
                "\"cron\":\"0 0 29 2 *\",\"until\":\"+999999999-12-31T23:59:59Z\""
            })
    void aFireAtFarInThePastOrAnUntilFarInTheFutureIsNeverA500(String fields) {
        check(fields);
    }

    private void check(String fields) {
        var before = rows.counts();
        var created = node.api.call(
                "POST", "/v1/schedules", ContractServer.TEST_KEY, "{\"endpoint\":\"" + ENDPOINT + "\"," + fields + "}");
        assertThat(created.status())
                .as("create with %s -> %s", fields, created.raw())
                .isIn(201, 400);
        if (created.status() == 400) {
            assertThat(rows.counts().schedules()).isEqualTo(before.schedules());
        } else {
            assertThat(node.api
                            .call(
                                    "DELETE",
                                    "/v1/schedules/" + created.json().get("id").asText(),
                                    ContractServer.TEST_KEY,
                                    null)
                            .status())
                    .isEqualTo(200);
        }
        // the same fields laid over an existing schedule of the same kind
        String base = fields.contains("rrule")
                ? "\"rrule\":\"FREQ=DAILY\",\"dtstart\":\"2035-01-01T09:00:00\""
                : fields.contains("cron") ? "\"cron\":\"0 0 1 1 *\"" : "\"fire_at\":\"2035-01-01T00:00:00Z\"";
        String id = node.api
                .call(
                        "POST",
                        "/v1/schedules",
                        ContractServer.TEST_KEY,
                        "{\"endpoint\":\"" + ENDPOINT + "\"," + base + "}")
                .json()
                .get("id")
                .asText();
        var stored = node.api.call("GET", "/v1/schedules/" + id, ContractServer.TEST_KEY, null);
        var patched = node.api.call("PATCH", "/v1/schedules/" + id, ContractServer.TEST_KEY, "{" + fields + "}");
        assertThat(patched.status())
                .as("PATCH with %s -> %s", fields, patched.raw())
                .isIn(200, 400);
        if (patched.status() == 400)
            assertThat(node.api
                            .call("GET", "/v1/schedules/" + id, ContractServer.TEST_KEY, null)
                            .raw())
                    .isEqualTo(stored.raw());
        node.api.call("DELETE", "/v1/schedules/" + id, ContractServer.TEST_KEY, null);
    }
}
