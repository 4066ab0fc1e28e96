package dev.idem.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.idem.core.store.Store;
import dev.idem.server.IdemServer;
import dev.idem.server.ServerConfig;
import dev.idem.store.testing.TestStores;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code idem schedules …} and {@code idem deliveries …} against a real node in this JVM (SQLite, real HTTP): aligned
 * tables for people, the API's JSON with {@code --json}, one-line errors and the exit codes 0 ok, 1 the API refused,
 * 2 bad usage (3, unreachable, is {@link CommandLineIT}'s, run from the fat jar).
 */
class ApiCommandsTest {
    static final String KEY = "sk_test_cli_commands_0123456789";
    static final ObjectMapper JSON = new ObjectMapper();
    /** Nothing listens on port 1: one attempt allowed, refused, the delivery is dead. */
    static final String DYING =
            "{\"endpoint\":\"http://127.0.0.1:1/dying\",\"retry\":{\"max_attempts\":1},\"auto_pause_after\":0}";

    @TempDir
    static Path dir;

    static Store store;
    static IdemServer node;

    @BeforeAll
    static void start() {
        store = TestStores.sqlite(dir, Clock.systemUTC());
        ServerConfig config = ServerConfig.builder()
                .port(0)
                .dataDir(dir)
                .bootstrapKey(KEY)
                .allowPrivateEndpoints(true)
                .nodeId("cli-test-" + System.nanoTime())
                .rateLimitPerSecond(0)
                .engine(e -> e.pollInterval(Duration.ofMillis(100)))
                .build();
        node = IdemServer.start(
                config,
                store,
                false,
                Clock.systemUTC(),
                new SecureRandom(),
                new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8));
    }

    @AfterAll
    static void stop() {
        if (node != null) node.close();
        if (store != null) store.close();
    }

    record Cli(int code, String out, String err) {
        JsonNode json() {
            try {
                return JSON.readTree(out);
            } catch (java.io.IOException e) {
                throw new AssertionError("not JSON: " + out + err, e);
            }
        }
    }

    static Cli idem(String... args) {
        return idemAt("http://127.0.0.1:" + node.port(), args);
    }

    /** The command against {@code url}: one where nothing listens shows a command refused before any request. */
    static Cli idemAt(String url, String... args) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        List<String> all = new ArrayList<>(List.of(args));
        all.addAll(List.of("--url", url, "--api-key", KEY));
        int code = IdemCommand.commandLine()
                .setOut(new PrintWriter(out))
                .setErr(new PrintWriter(err))
                .execute(all.toArray(new String[0]));
        return new Cli(code, out.toString(), err.toString());
    }

    static Cli ok(String... args) {
        Cli c = idem(args);
        assertThat(c.code()).as(String.join(" ", args) + ": " + c.err()).isZero();
        assertThat(c.err()).isEmpty();
        return c;
    }

    /** The column where {@code header} starts on the header line; every other line has a cell starting there too. */
    static void assertAligned(String table, String... headers) {
        List<String> lines = table.lines().toList();
        String head = lines.get(0);
        for (String h : headers) {
            int at = head.indexOf(h);
            assertThat(at).as(h + " in " + head).isGreaterThanOrEqualTo(0);
            for (String line : lines.subList(1, lines.size())) {
                if (line.startsWith("more:")) continue;
                assertThat(at == 0 || (line.length() > at && line.charAt(at - 1) == ' ' && line.charAt(at) != ' '))
                        .as("column %s at %d in:%n%s", h, at, table)
                        .isTrue();
            }
        }
    }

    @Test
    void schedulesAreCreatedListedReadPausedResumedAndDeletedAsTablesOrJson() {
        Cli created = ok(
                "schedules",
                "create",
                "--endpoint",
                "https://example.com/hooks/cli",
                "--cron",
                "0 3 * * *",
                "--event-type",
                "cli.test");
        assertThat(created.out())
                .containsPattern("(?m)^id +sch_\\S+$")
                .containsPattern("(?m)^status +active$")
                .containsPattern("(?m)^retry +\\{\"max_attempts\"");
        String id = created.out()
                .lines()
                .filter(l -> l.startsWith("id "))
                .findFirst()
                .orElseThrow()
                .split(" +")[1];

        Cli asJson = ok("schedules", "get", id, "--json");
        assertThat(asJson.json().get("id").asText()).isEqualTo(id);
        assertThat(asJson.json().get("event_type").asText()).isEqualTo("cli.test");

        ok(
                "schedules",
                "create",
                "--json",
                "--data",
                "{\"endpoint\":\"https://example.com/hooks/other\",\"delay\":\"1h\"}");
        Cli list = ok("schedules", "list", "--limit", "1");
        assertThat(list.out().lines().toList())
                .hasSize(3)
                .first()
                .asString()
                .startsWith("ID")
                .contains("STATUS", "NEXT FIRE", "ENDPOINT");
        assertThat(list.out()).containsPattern("(?m)^more: --starting-after sch_\\S+$");
        Cli twoRows = ok("schedules", "list", "--limit", "2");
        assertAligned(twoRows.out(), "ID", "STATUS", "KIND", "NEXT FIRE", "LAST DELIVERY", "EVENT TYPE", "ENDPOINT");
        assertThat(twoRows.out()).contains(id, "cli.test", "https://example.com/hooks/cli");
        assertThat(ok("schedules", "list", "--json", "--status", "active")
                        .json()
                        .get("data")
                        .isArray())
                .isTrue();
        assertThat(ok("schedules", "list", "--status", "deleted").out())
                .isEqualTo("no schedules" + System.lineSeparator());

        assertThat(ok("schedules", "pause", id).out()).containsPattern("(?m)^status +paused$");
        assertThat(ok("schedules", "resume", id, "--json").json().get("status").asText())
                .isEqualTo("active");
        assertThat(ok("schedules", "delete", id, "--json").json().get("status").asText())
                .isEqualTo("deleted");

        Cli missing = idem("schedules", "get", "sch_missing");
        assertThat(missing.code()).isEqualTo(1);
        assertThat(missing.out()).isEmpty();
        assertThat(missing.err().lines().toList())
                .singleElement()
                .asString()
                .startsWith("idem: ")
                .contains("sch_missing", "(HTTP 404, not_found_error/resource_missing", ", request req_");
        Cli refused = idem("schedules", "create", "--endpoint", "ftp://example.com/x");
        assertThat(refused.code()).isEqualTo(1);
        assertThat(refused.err().lines().toList())
                .singleElement()
                .asString()
                .contains("endpoint_invalid", "param endpoint");
        Cli noId = idem("schedules", "pause");
        assertThat(noId.code()).isEqualTo(2);
        assertThat(noId.err()).contains("ID");
    }

    @Test
    void deliveriesAreListedReadAndReplayedOneByOneAndInBulk() {
        String schedule = ok("schedules", "create", "--json", "--data", DYING)
                .json()
                .get("id")
                .asText();
        String delivery = awaitDead(schedule, 1);

        Cli dead = ok("deliveries", "list", "--status", "dead", "--schedule", schedule);
        assertAligned(dead.out(), "ID", "STATUS", "ATTEMPTS", "SCHEDULED FOR", "SCHEDULE", "LAST ERROR");
        assertThat(dead.out().lines().toList()).hasSize(2);
        assertThat(dead.out().lines().toList().get(1)).startsWith(delivery).contains("dead", schedule);
        assertThat(ok("deliveries", "list", "--schedule", schedule, "--json")
                        .json()
                        .at("/data/0/id")
                        .asText())
                .isEqualTo(delivery);

        Cli got = ok("deliveries", "get", delivery);
        assertThat(got.out())
                .containsPattern("(?m)^status +dead$")
                .containsPattern("(?m)^ATTEMPT +STARTED +MS +STATUS CODE +ERROR")
                .containsPattern("(?m)^1 +\\S+Z +\\d+ +- +\\S");
        assertThat(ok("deliveries", "get", delivery, "--json").json().get("attempts"))
                .hasSize(1);

        Cli one = ok("deliveries", "replay", delivery, "--json");
        assertThat(one.json().get("id").asText()).isEqualTo(delivery);
        assertThat(one.json().get("status").asText()).isIn("retrying", "delivering", "dead");
        awaitDead(schedule, 2);

        // a relative time is resolved by the command line and still narrows: it went dead within the hour
        assertThat(ok("deliveries", "replay", "--dead", "--until", "1h", "--schedule", schedule)
                        .out())
                .isEqualTo("replayed 0 dead deliveries" + System.lineSeparator());
        Cli bulk = ok("deliveries", "replay", "--dead", "--since", "1h", "--schedule", schedule);
        assertThat(bulk.out()).isEqualTo("replayed 1 dead deliveries" + System.lineSeparator());
        awaitDead(schedule, 3);
        Cli bulkJson = ok(
                "deliveries",
                "replay",
                "--dead",
                "--endpoint",
                "http://127.0.0.1:1/dying",
                "--json",
                "--idempotency-key",
                "cli-bulk-" + System.nanoTime());
        assertThat(bulkJson.json().get("replayed").asInt()).isGreaterThanOrEqualTo(1);
        assertThat(bulkJson.json().get("skipped_schedule_deleted").asInt()).isZero();
        awaitDead(schedule, 4);
        ok("schedules", "pause", schedule);
        Cli paused = ok("deliveries", "replay", "--dead", "--schedule", schedule);
        assertThat(paused.out())
                .isEqualTo(
                        "replayed 0 dead deliveries; skipped 1 whose schedule is paused: resume it, then replay again"
                                + System.lineSeparator());
        assertThat(ok("deliveries", "get", delivery, "--json")
                        .json()
                        .get("status")
                        .asText())
                .isEqualTo("dead");

        Cli noSuchApplication = idem("deliveries", "replay", "--dead", "--application", "nobody");
        assertThat(noSuchApplication.code()).isEqualTo(1);
        assertThat(noSuchApplication.err()).contains("param application", "400");
        Cli noSuchEndpoint = idem("deliveries", "list", "--endpoint-id", "ep_x", "--schedule", schedule);
        assertThat(noSuchEndpoint.code()).isEqualTo(1);
        assertThat(noSuchEndpoint.err()).contains("param endpoint_id", "400");
        Cli neither = idem("deliveries", "replay");
        assertThat(neither.code()).isEqualTo(2);
        assertThat(neither.err()).contains("give a delivery id", "--dead");
        Cli both = idem("deliveries", "replay", delivery, "--dead");
        assertThat(both.code()).isEqualTo(2);
        Cli filterOnOne = idem("deliveries", "replay", delivery, "--since", "1h");
        assertThat(filterOnOne.code()).isEqualTo(2);
        assertThat(filterOnOne.err()).contains("go with --dead");
        Cli missing = idem("deliveries", "get", "dlv_missing");
        assertThat(missing.code()).isEqualTo(1);
        assertThat(missing.err()).contains("dlv_missing", "HTTP 404");
    }

    @Test
    void aBulkReplayWithABadTimeIsRefusedBeforeAnyRequestNamingTheOption() {
        // nothing listens on port 1: a request made would be exit 3 (unreachable), the server's refusal exit 1
        String nowhere = "http://127.0.0.1:1";
        Cli since = idemAt(nowhere, "deliveries", "replay", "--dead", "--since", "yesterday");
        assertThat(since.code()).isEqualTo(2);
        assertThat(since.err().lines().findFirst().orElseThrow())
                .startsWith("idem: ")
                .contains("--since must be a duration (1h, 7d, PT30M) or an RFC 3339 instant", "yesterday");
        Cli until = idemAt(nowhere, "deliveries", "replay", "--dead", "--until", "PT1X");
        assertThat(until.code()).isEqualTo(2);
        assertThat(until.err()).contains("--until must be a duration");
        Cli backwards = idemAt(nowhere, "deliveries", "replay", "--dead", "--since", "1h", "--until", "2h");
        assertThat(backwards.code()).isEqualTo(2);
        assertThat(backwards.err()).contains("--until must be later than --since");
        assertThat(idemAt(nowhere, "deliveries", "replay", "--dead", "--since", "1h")
                        .code())
                .as("a good time goes on to the request")
                .isEqualTo(3);
    }

    @Test
    void everyFieldOfACreateHasAFlagAndFlagsBesideDataSetTheirFieldsOnTopOfIt() {
        JsonNode s = ok(
                        "schedules",
                        "create",
                        "--endpoint",
                        "http://127.0.0.1:1/flags",
                        "--rrule",
                        "FREQ=DAILY;BYHOUR=9;BYMINUTE=0",
                        "--timezone",
                        "Europe/Paris",
                        "--dtstart",
                        "2030-01-01T09:00:00",
                        "--exdates",
                        "2030-01-02T09:00:00,2030-01-03T09:00:00",
                        "--until",
                        "2030-06-01T00:00:00Z",
                        "--count",
                        "20",
                        "--catch-up",
                        "none",
                        "--body",
                        "ping",
                        "--content-type",
                        "text/plain",
                        "--header",
                        "X-Tenant=acme",
                        "--header",
                        "X-Trace=on=off",
                        "--header-profile",
                        "rrule",
                        "--event-type",
                        "report.daily",
                        "--idempotency-key",
                        "flags-key",
                        "--dedup-id",
                        "flags-" + System.nanoTime(),
                        "--max-attempts",
                        "3",
                        "--initial-backoff",
                        "10s",
                        "--max-backoff",
                        "1h",
                        "--max-age",
                        "6h",
                        "--timeout",
                        "15s",
                        "--auto-pause-after",
                        "0",
                        "--metadata",
                        "{\"team\":\"billing\"}",
                        "--flow-key",
                        "acme",
                        "--flow-parallelism",
                        "2",
                        "--flow-rate",
                        "5",
                        "--json")
                .json();
        assertThat(s.get("exdates").toString()).isEqualTo("[\"2030-01-02T09:00:00\",\"2030-01-03T09:00:00\"]");
        assertThat(s.get("count").asInt()).isEqualTo(20);
        assertThat(s.get("catch_up").asText()).isEqualTo("none");
        assertThat(s.get("body").asText()).isEqualTo("ping");
        assertThat(s.get("headers").toString()).isEqualTo("{\"X-Tenant\":\"acme\",\"X-Trace\":\"on=off\"}");
        assertThat(s.get("header_profile").asText()).isEqualTo("rrule");
        assertThat(s.get("retry").toString())
                .isEqualTo(
                        "{\"max_attempts\":3,\"initial_backoff\":\"10s\",\"max_backoff\":\"1h\",\"max_age\":\"6h\"}");
        assertThat(s.get("timeout").asText()).isEqualTo("15s");
        assertThat(s.get("auto_pause_after").asInt()).isZero();
        assertThat(s.get("metadata").toString()).isEqualTo("{\"team\":\"billing\"}");
        assertThat(s.get("flow_control").toString()).isEqualTo("{\"key\":\"acme\",\"parallelism\":2,\"rate\":5}");
        assertThat(s.get("idempotency_key").asText()).isEqualTo("flags-key");

        JsonNode merged = ok(
                        "schedules",
                        "create",
                        "--data",
                        "{\"endpoint\":\"http://127.0.0.1:1/data\",\"fire_at\":\"2035-01-01T00:00:00Z\","
                                + "\"retry\":{\"max_age\":\"2h\"},\"timeout\":\"5s\"}",
                        "--max-attempts",
                        "2",
                        "--timeout",
                        "20s",
                        "--json")
                .json();
        assertThat(merged.get("endpoint").asText()).isEqualTo("http://127.0.0.1:1/data");
        assertThat(merged.at("/retry/max_attempts").asInt()).isEqualTo(2);
        assertThat(merged.at("/retry/max_age").asText()).isEqualTo("2h");
        assertThat(merged.get("timeout").asText()).isEqualTo("20s");

        Cli noKey = idem("schedules", "create", "--endpoint", "http://127.0.0.1:1/x", "--flow-rate", "5");
        assertThat(noKey.code()).isEqualTo(2);
        assertThat(noKey.err()).contains("--flow-parallelism and --flow-rate need --flow-key");
        Cli badHeader = idem("schedules", "create", "--endpoint", "http://127.0.0.1:1/x", "--header", "X-Only");
        assertThat(badHeader.code()).isEqualTo(2);
        assertThat(badHeader.err()).contains("--header", "KEY=VALUE");
    }

    /** Waits until the schedule's one delivery is dead after {@code attempts} attempts; its id. */
    static String awaitDead(String scheduleId, int attempts) {
        String[] id = new String[1];
        await().atMost(Duration.ofSeconds(30))
                .pollInterval(Duration.ofMillis(100))
                .until(() -> {
                    JsonNode d = idem("deliveries", "list", "--schedule", scheduleId, "--json")
                            .json()
                            .at("/data/0");
                    id[0] = d.path("id").asText(null);
                    return "dead".equals(d.path("status").asText())
                            && d.path("attempt_count").asInt() == attempts;
                });
        return id[0];
    }
}
