package dev.idem.cli;

import static dev.idem.cli.ApiCommandsTest.assertAligned;
import static dev.idem.cli.ApiCommandsTest.idem;
import static dev.idem.cli.ApiCommandsTest.ok;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * {@code idem sources …}, {@code idem settings …} and {@code deliveries list --source} against the same in-process node
 * as {@link ApiCommandsTest}: a source made from the command line takes GitHub's published example event at its ingest
 * URL, and its forward is listed by source; the secret never appears in any output.
 */
class SourcesAndSettingsCommandsTest {
    /** GitHub's documented example: this secret and body "Hello, World!" give this signature. */
    static final String GITHUB_SECRET = "It's a Secret to Everybody";

    static final String GITHUB_SIGNATURE = "sha256=757107ea0eb2509fc211221cce984b8a37570b6d7586c22c46f4379c8b043e17";

    @BeforeAll
    static void start() throws java.io.IOException {
        // ApiCommandsTest's @TempDir is injected only when that class runs: this class gives the node its own directory
        ApiCommandsTest.dir = java.nio.file.Files.createTempDirectory("idem-cli-sources");
        ApiCommandsTest.start();
    }

    @AfterAll
    static void stop() {
        ApiCommandsTest.stop();
    }

    @Test
    void aSourceIsCreatedListedFedRotatedAndDeletedFromTheCommandLine() throws Exception {
        ApiCommandsTest.Cli created = ok(
                "sources",
                "create",
                "--name",
                "github-cli",
                "--scheme",
                "github",
                "--secret",
                GITHUB_SECRET,
                "--destination",
                "http://127.0.0.1:1/github",
                "--dedup",
                "auto");
        assertThat(created.out())
                .containsPattern("(?m)^id +src_\\S+$")
                .containsPattern("(?m)^ingest_url +http://\\S+/in/src_\\S+$")
                .doesNotContain(GITHUB_SECRET);
        String id = created.out()
                .lines()
                .filter(l -> l.startsWith("id "))
                .findFirst()
                .orElseThrow()
                .split(" +")[1];
        String ingestUrl = created.out()
                .lines()
                .filter(l -> l.startsWith("ingest_url "))
                .findFirst()
                .orElseThrow()
                .split(" +")[1];

        ok(
                "sources",
                "create",
                "--name",
                "second",
                "--scheme",
                "stripe",
                "--secret",
                "whsec_cli",
                "--destination",
                "http://127.0.0.1:1/stripe");
        ApiCommandsTest.Cli list = ok("sources", "list");
        assertAligned(list.out(), "ID", "NAME", "SCHEME", "DESTINATION", "INGEST URL");
        assertThat(list.out())
                .contains(id, "github-cli", "github", ingestUrl)
                .doesNotContain(GITHUB_SECRET, "whsec_cli");
        assertThat(ok("sources", "get", id, "--json")
                        .json()
                        .at("/verify/scheme")
                        .asText())
                .isEqualTo("github");

        HttpResponse<String> ingested = HttpClient.newHttpClient()
                .send(
                        HttpRequest.newBuilder(URI.create(ingestUrl))
                                .header("X-Hub-Signature-256", GITHUB_SIGNATURE)
                                .header("X-GitHub-Delivery", "cli-" + System.nanoTime())
                                .header("X-GitHub-Event", "push")
                                .POST(HttpRequest.BodyPublishers.ofString("Hello, World!"))
                                .build(),
                        HttpResponse.BodyHandlers.ofString());
        assertThat(ingested.statusCode()).as(ingested.body()).isEqualTo(200);
        await().atMost(Duration.ofSeconds(30))
                .until(() -> ok("deliveries", "list", "--source", id, "--json")
                                .json()
                                .path("data")
                                .size()
                        == 1);
        assertThat(ok("deliveries", "list", "--source", id).out()).contains("SCHEDULED FOR");

        ApiCommandsTest.Cli rotated =
                ok("sources", "update", id, "--secret", "a new secret", "--name", "github-renamed", "--json");
        assertThat(rotated.json().get("name").asText()).isEqualTo("github-renamed");
        assertThat(rotated.json().at("/verify/previous_secret_expires_at").isTextual())
                .as(rotated.out())
                .isTrue();
        assertThat(rotated.out()).doesNotContain("a new secret", GITHUB_SECRET);
        assertThat(idem("sources", "update", id).code())
                .as("nothing to change is bad usage")
                .isEqualTo(2);

        ApiCommandsTest.Cli bad = idem(
                "sources",
                "create",
                "--name",
                "x",
                "--scheme",
                "carrier-pigeon",
                "--secret",
                "s",
                "--destination",
                "http://127.0.0.1:1/x");
        assertThat(bad.code()).isEqualTo(1);
        assertThat(bad.err().lines().toList())
                .singleElement()
                .asString()
                .startsWith("idem: ")
                .contains("HTTP 400", "param verify.scheme");

        assertThat(ok("sources", "delete", id, "--json").json().get("status").asText())
                .isEqualTo("deleted");
        HttpResponse<String> afterDelete = HttpClient.newHttpClient()
                .send(
                        HttpRequest.newBuilder(URI.create(ingestUrl))
                                .header("X-Hub-Signature-256", GITHUB_SIGNATURE)
                                .POST(HttpRequest.BodyPublishers.ofString("Hello, World!"))
                                .build(),
                        HttpResponse.BodyHandlers.ofString());
        assertThat(afterDelete.statusCode()).isEqualTo(404);
    }

    @Test
    void settingsAreReadAndChangedFieldByField() {
        ok("settings", "set", "--alert-endpoint", "https://example.com/cli-alerts", "--alert-events", "delivery.dead");
        ApiCommandsTest.Cli got = ok("settings", "get", "--json");
        assertThat(got.json().get("alert_endpoint").asText()).isEqualTo("https://example.com/cli-alerts");
        assertThat(got.json().get("alert_events"))
                .hasSize(1)
                .first()
                .extracting(e -> e.asText())
                .isEqualTo("delivery.dead");
        assertThat(ok("settings", "get").out()).containsPattern("(?m)^alert_endpoint +https://example.com/cli-alerts$");

        ApiCommandsTest.Cli events =
                ok("settings", "set", "--alert-events", "delivery.dead,schedule.auto_paused", "--json");
        assertThat(events.json().get("alert_endpoint").asText())
                .as("a field not given is kept")
                .isEqualTo("https://example.com/cli-alerts");
        assertThat(events.json().get("alert_events")).hasSize(2);

        ApiCommandsTest.Cli badEvent = idem("settings", "set", "--alert-events", "delivery.lost");
        assertThat(badEvent.code()).isEqualTo(1);
        assertThat(badEvent.err()).contains("HTTP 400", "param alert_events[0]");
        assertThat(ok("settings", "get", "--json").json().get("alert_events"))
                .as("a refused call changes nothing")
                .hasSize(2);

        assertThat(ok("settings", "set", "--no-alert-endpoint", "--json")
                        .json()
                        .get("alert_endpoint")
                        .isNull())
                .isTrue();
        assertThat(idem("settings", "set").code()).isEqualTo(2);
        assertThat(idem("settings", "set", "--alert-endpoint", "https://example.com/a", "--no-alert-endpoint")
                        .code())
                .isEqualTo(2);
    }
}
