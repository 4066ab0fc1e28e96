package dev.idem.cli;

import static dev.idem.cli.ApiCommandsTest.assertAligned;
import static dev.idem.cli.ApiCommandsTest.idem;
import static dev.idem.cli.ApiCommandsTest.ok;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * {@code idem applications|endpoints|event-types|messages …} against the same in-process node as {@link ApiCommandsTest}: what
 * the commands create reads back through the API, tables are aligned, and a refusal names what to fix.
 */
class FanoutCommandsTest {
    @BeforeAll
    static void start() throws java.io.IOException {
        ApiCommandsTest.dir = Files.createTempDirectory("idem-cli-fanout");
        ApiCommandsTest.start();
    }

    @AfterAll
    static void stop() {
        ApiCommandsTest.stop();
    }

    private static String field(ApiCommandsTest.Cli shown, String name) {
        return shown.out()
                .lines()
                .filter(l -> l.startsWith(name + " "))
                .findFirst()
                .orElseThrow(() -> new AssertionError(name + " in " + shown.out()))
                .split(" +", 2)[1];
    }

    @Test
    void anApplicationWithAnEndpointIsMadeListedChangedAndDeleted() {
        String app = field(
                ok("applications", "create", "--name", "Acme", "--uid", "cli_acme", "--metadata", "{\"t\":1}"), "id");
        assertAligned(ok("applications", "list").out(), "ID", "UID", "NAME", "STATUS", "RATE LIMIT");
        assertThat(ok("applications", "get", "cli_acme", "--json")
                        .json()
                        .get("id")
                        .asText())
                .isEqualTo(app);
        assertThat(field(ok("applications", "update", "cli_acme", "--name", "Acme 2"), "name"))
                .isEqualTo("Acme 2");

        ApiCommandsTest.Cli ep = ok(
                "endpoints",
                "create",
                "http://127.0.0.1:1/hook",
                "--application",
                "cli_acme",
                "--event-type",
                "invoice.*",
                "--event-type",
                "report.daily",
                "--filter",
                "{\"data.amount\":{\"$gte\":1000}}",
                "--header",
                "X-Team=billing");
        String id = field(ep, "id");
        var json = ok("endpoints", "get", id, "--json").json();
        assertThat(json.get("application").asText()).isEqualTo(app);
        assertThat(json.get("event_types").toString()).isEqualTo("[\"invoice.*\",\"report.daily\"]");
        assertThat(json.at("/headers/X-Team").asText()).isEqualTo("billing");
        ApiCommandsTest.Cli list = ok("endpoints", "list", "--application", "cli_acme");
        assertAligned(list.out(), "ID", "STATUS", "APPLICATION", "EVENT TYPES", "URL");
        assertThat(list.out()).contains(id, "invoice.*,report.daily");

        assertThat(field(ok("endpoints", "update", id, "--disable", "--no-filter"), "status"))
                .isEqualTo("disabled");
        assertThat(ok("endpoints", "get", id, "--json").json().get("filter").isNull())
                .isTrue();
        assertThat(field(ok("applications", "delete", app), "status")).isEqualTo("deleted");
        assertThat(field(ok("endpoints", "delete", id), "status")).isEqualTo("deleted");
    }

    @Test
    void aFilterIsTriedAndABadOneIsRefusedByTheServerOrTheCommandLine() {
        assertThat(ok(
                                "endpoints",
                                "test-filter",
                                "--filter",
                                "{\"type\":\"invoice.paid\"}",
                                "--payload",
                                "{\"type\":\"invoice.paid\"}")
                        .out())
                .isEqualTo("matches" + System.lineSeparator());
        ApiCommandsTest.Cli refused =
                idem("endpoints", "test-filter", "--filter", "{\"a\":{\"$gtee\":1}}", "--payload", "{}");
        assertThat(refused.code()).isEqualTo(1);
        assertThat(refused.err()).contains("filter.a.$gtee");
        ApiCommandsTest.Cli notJson = idem("endpoints", "create", "http://127.0.0.1:1/x", "--filter", "{nope");
        assertThat(notJson.code()).isEqualTo(2);
        assertThat(notJson.err()).contains("not JSON");
    }

    @Test
    void anEventTypeTakesItsSchemaFromAFile() throws Exception {
        Path schema = Files.createTempFile(ApiCommandsTest.dir, "schema", ".json");
        Files.writeString(schema, "{\"type\":\"object\",\"required\":[\"amount\"]}");
        ok("event-types", "create", "cli.paid", "--schema-file", schema.toString(), "--example", "{\"amount\":1}");
        assertAligned(ok("event-types", "list").out(), "NAME", "SCHEMA", "DEPRECATED", "DESCRIPTION");
        assertThat(ok("event-types", "get", "cli.paid", "--json")
                        .json()
                        .at("/schema/required/0")
                        .asText())
                .isEqualTo("amount");
        ApiCommandsTest.Cli bad = idem("event-types", "update", "cli.paid", "--example", "{}");
        assertThat(bad.code()).isEqualTo(1);
        assertThat(bad.err()).contains("example");
        assertThat(field(ok("event-types", "update", "cli.paid", "--deprecated"), "deprecated"))
                .isEqualTo("true");
        ok("event-types", "delete", "cli.paid");
        assertThat(idem("event-types", "get", "cli.paid").code()).isEqualTo(1);
    }

    @Test
    void aMessageIsSentToItsEndpointsListedAndReadWithItsDeliveries() {
        ok("applications", "create", "--name", "Msg", "--uid", "cli_msg");
        String ep = field(
                ok(
                        "endpoints",
                        "create",
                        "http://127.0.0.1:1/orders",
                        "--application",
                        "cli_msg",
                        "--event-type",
                        "cli.order.*"),
                "id");
        String[] send = {
            "messages",
            "send",
            "cli.order.placed",
            "--application",
            "cli_msg",
            "--payload",
            "{\"order\": \"o_1\", \"amount\": 1.50}",
            "--idempotency-key",
            "o_1-placed"
        };
        ApiCommandsTest.Cli sent = ok(send);
        String id = field(sent, "id");
        assertThat(id).startsWith("msg_");
        assertThat(field(sent, "deliveries")).isEqualTo("1");
        assertThat(field(sent, "idempotency_key")).isEqualTo("o_1-placed");
        assertThat(field(ok(send), "id"))
                .as("run again with its key, the command sends nothing twice")
                .isEqualTo(id);

        ApiCommandsTest.Cli shown = ok("messages", "get", id);
        assertThat(shown.out()).contains("DELIVERY", "ENDPOINT", ep, "o_1-placed");
        var json = ok("messages", "get", id, "--json").json();
        assertThat(json.at("/endpoint_deliveries/0/endpoint_id").asText()).isEqualTo(ep);
        assertThat(json.at("/endpoint_deliveries/0/idempotency_key").asText()).isEqualTo("o_1-placed:" + ep);
        assertThat(json.at("/payload/amount").decimalValue()).isEqualByComparingTo("1.50");

        ApiCommandsTest.Cli list = ok("messages", "list", "--application", "cli_msg", "--since", "1h");
        assertAligned(list.out(), "ID", "EVENT TYPE", "APPLICATION", "DELIVERIES", "CREATED", "SCHEDULE");
        assertThat(list.out()).contains(id, "cli.order.placed");
        assertThat(ok("messages", "list", "--event-type", "cli.nothing").out())
                .isEqualTo("no messages" + System.lineSeparator());
        assertThat(ok("messages", "list", "--application", "cli_msg", "--until", "2000-01-01T00:00:00Z")
                        .out())
                .isEqualTo("no messages" + System.lineSeparator());
    }

    @Test
    void deliveriesAreListedByEventTypeAndCreationTimeAsTheApiNarrowsThem() {
        ok("applications", "create", "--name", "Narrow", "--uid", "cli_narrow");
        ok(
                "endpoints",
                "create",
                "http://127.0.0.1:1/narrow",
                "--application",
                "cli_narrow",
                "--event-type",
                "cli.narrow.*");
        JsonNode placed = sendAndList("cli.narrow.placed").get(0);
        Instant placedAt = Instant.parse(placed.get("created_at").asText());
        // the next message's delivery is created a whole millisecond later, so a range can hold one and not the other
        await().atMost(Duration.ofSeconds(5))
                .pollInterval(Duration.ofMillis(1))
                .until(() -> Instant.now().isAfter(placedAt.plusMillis(1)));
        JsonNode shipped = sendAndList("cli.narrow.shipped").get(0);
        String a = placed.get("id").asText();
        String b = shipped.get("id").asText();
        String bAt = shipped.get("created_at").asText();

        assertThat(ids("--application", "cli_narrow")).containsExactly(b, a);
        assertThat(ids("--application", "cli_narrow", "--event-type", "cli.narrow.placed"))
                .containsExactly(a);
        assertThat(ids("--application", "cli_narrow", "--event-type", "cli.narrow.shipped"))
                .containsExactly(b);
        assertThat(ids("--application", "cli_narrow", "--since", bAt)).containsExactly(b);
        assertThat(ids("--application", "cli_narrow", "--until", bAt)).containsExactly(a);
        assertThat(ids("--application", "cli_narrow", "--since", "1h")).containsExactly(b, a);
        assertThat(ok("deliveries", "list", "--application", "cli_narrow", "--until", "2000-01-01T00:00:00Z")
                        .out())
                .isEqualTo("no deliveries" + System.lineSeparator());
    }

    @Test
    void aDeliveriesListWithABadFilterIsRefusedBeforeAnyRequest() {
        // exit 2 is the command line's refusal; the server's (a 400) would be exit 1
        ApiCommandsTest.Cli since = idem("deliveries", "list", "--since", "yesterday");
        assertThat(since.code()).isEqualTo(2);
        assertThat(since.err()).contains("--since must be a duration (1h, 7d, PT30M) or an RFC 3339 instant");
        assertThat(idem("deliveries", "list", "--until", "PT1X").err()).contains("--until must be a duration");
        ApiCommandsTest.Cli backwards = idem("deliveries", "list", "--since", "1h", "--until", "2h");
        assertThat(backwards.code()).isEqualTo(2);
        assertThat(backwards.err()).contains("--until must be later than --since");
        ApiCommandsTest.Cli type = idem("deliveries", "list", "--event-type", "invoice paid");
        assertThat(type.code()).isEqualTo(2);
        assertThat(type.err()).contains("--event-type invoice paid: an event type name is");
    }

    @Test
    void aMessagesListWithABadEventTypeIsRefusedBeforeAnyRequest() {
        // nothing listens on port 1: a request made would be exit 3 (unreachable), the server's refusal exit 1
        ApiCommandsTest.Cli type =
                ApiCommandsTest.idemAt("http://127.0.0.1:1", "messages", "list", "--event-type", "invoice paid");
        assertThat(type.code()).isEqualTo(2);
        assertThat(type.err()).contains("--event-type invoice paid: an event type name is");
        assertThat(ApiCommandsTest.idemAt("http://127.0.0.1:1", "messages", "list", "--event-type", "invoice.paid")
                        .code())
                .as("a good name goes on to the request")
                .isEqualTo(3);
    }

    /** Sends a message of {@code eventType} to application cli_narrow; that application's deliveries, newest first. */
    private static JsonNode sendAndList(String eventType) {
        ok("messages", "send", eventType, "--application", "cli_narrow", "--payload", "{}");
        return ok("deliveries", "list", "--application", "cli_narrow", "--json")
                .json()
                .get("data");
    }

    private static java.util.List<String> ids(String... filter) {
        String[] args = new String[filter.length + 3];
        args[0] = "deliveries";
        args[1] = "list";
        System.arraycopy(filter, 0, args, 2, filter.length);
        args[args.length - 1] = "--json";
        java.util.List<String> ids = new java.util.ArrayList<>();
        ok(args).json().get("data").forEach(d -> ids.add(d.get("id").asText()));
        return ids;
    }

    @Test
    void aBadMessageIsRefusedByTheCommandLineOrTheServerNamingWhatToFix() throws Exception {
        ApiCommandsTest.Cli notJson = idem("messages", "send", "cli.x", "--payload", "{nope");
        assertThat(notJson.code()).isEqualTo(2);
        assertThat(notJson.err()).contains("not JSON");
        Path file = Files.createTempFile(ApiCommandsTest.dir, "payload", ".json");
        Files.writeString(file, "{\"a\":1}");
        ApiCommandsTest.Cli both =
                idem("messages", "send", "cli.x", "--payload", "{}", "--payload-file", file.toString());
        assertThat(both.code()).isEqualTo(2);
        assertThat(idem("messages", "send", "cli.x").code()).isEqualTo(2);
        assertThat(idem("messages", "list", "--since", "yesterday").code()).isEqualTo(2);
        ApiCommandsTest.Cli unknown =
                idem("messages", "send", "cli.x", "--payload-file", file.toString(), "--application", "cli_nobody");
        assertThat(unknown.code()).isEqualTo(1);
        assertThat(unknown.err()).contains("application");
        assertThat(idem("messages", "get", "msg_missing").code()).isEqualTo(1);
    }
}
