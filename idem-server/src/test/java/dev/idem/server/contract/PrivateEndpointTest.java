package dev.idem.server.contract;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.idem.server.ApiClientForTests;
import dev.idem.store.testing.TestStores;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.nio.file.Path;
import java.time.Clock;
import java.util.Arrays;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The outbound-safety matrix through the API of a node started without {@code --allow-private-endpoints}:
 * every internal address form is a 400 {@code endpoint_not_allowed} on {@code endpoint} at create and at
 * PATCH time, and nothing is written; a public literal address is accepted (it is never delivered: it is
 * far in the future and deleted at once; this test sends nothing anywhere but 127.0.0.1).
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class PrivateEndpointTest {
    @TempDir
    static Path dir;

    ContractServer node;
    StoreRows rows;

    @BeforeAll
    void start() {
        node = ContractServer.start(TestStores.sqlite(dir, Clock.systemUTC()), dir, false);
        rows = new StoreRows(dir);
    }

    @AfterAll
    void stop() {
        if (node != null) node.close();
    }

    ApiClientForTests.Reply create(String endpoint, String idempotencyKey) {
        return node.api.call(
                "POST",
                "/v1/schedules",
                ContractServer.TEST_KEY,
                "{\"endpoint\":" + ApiClientForTests.JSON.getNodeFactory().textNode(endpoint)
                        + ",\"fire_at\":\"2035-01-01T00:00:00Z\"}",
                idempotencyKey == null ? Map.of() : Map.of("Idempotency-Key", idempotencyKey));
    }

    static void assertRefused(ApiClientForTests.Reply r, String endpoint) {
        assertThat(r.status()).as("%s -> %s", endpoint, r.raw()).isEqualTo(400);
        JsonNode e = r.json().get("error");
        assertThat(e.get("type").asText()).isEqualTo("invalid_request_error");
        assertThat(e.get("code").asText()).as("%s -> %s", endpoint, r.raw()).isEqualTo("endpoint_not_allowed");
        assertThat(e.get("param").asText()).isEqualTo("endpoint");
        assertThat(e.get("message").asText()).contains("--allow-private-endpoints");
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(
            strings = {
                // loopback
                "http://127.0.0.1/hook",
                "https://127.0.0.1:8443/hook",
                "http://127.1.2.3/",
                "http://[::1]/hook",
                "http://[0:0:0:0:0:0:0:1]:9000/",
                "http://localhost/hook",
                "https://localhost:9000/",
                "http://LocalHost/",
                "http://localhost./",
                "http://api.localhost/",
                // private networks
                "http://10.0.0.1/",
                "https://10.255.255.254/x",
                "http://172.16.0.1/",
                "http://172.31.255.254/",
                "http://192.168.0.1/",
                "http://192.168.255.254:8080/x?y=1",
                // link-local and cloud metadata
                "http://169.254.0.1/",
                "http://169.254.169.254/latest/meta-data/",
                "http://169.254.169.254:80/computeMetadata/v1/",
                "http://metadata.google.internal/computeMetadata/v1/",
                "http://METADATA.GOOGLE.INTERNAL./",
                "http://[fd00:ec2::254]/",
                "http://100.100.100.200/",
                "http://[fe80::1]/",
                "http://[febf:ffff::1]/",
                // carrier-grade NAT
                "http://100.64.0.1/",
                "http://100.127.255.254/",
                // multicast, unspecified, reserved
                "http://224.0.0.1/",
                "http://239.255.255.250:1900/",
                "http://[ff02::1]/",
                "http://0.0.0.0/",
                "http://0.0.0.0:8080/",
                "http://[::]/",
                "http://240.0.0.1/",
                "http://255.255.255.255/",
                // IPv6 unique-local
                "http://[fc00::1]/",
                "http://[fd12:3456:789a::1]/",
                "http://[fdff:ffff:ffff:ffff:ffff:ffff:ffff:ffff]/",
                // IPv6 forms of internal IPv4 addresses
                "http://[::ffff:10.0.0.1]/",
                "http://[::ffff:127.0.0.1]/",
                "http://[::ffff:7f00:1]/",
                "http://[0:0:0:0:0:ffff:192.168.1.1]/",
                "http://[::ffff:169.254.169.254]/",
                "http://[::ffff:a9fe:a9fe]/",
                "http://[::127.0.0.1]/",
                "http://[64:ff9b::10.0.0.1]/",
                "http://[2002:a00:1::]/",
            })
    void anInternalEndpointIsRefusedAndNothingIsWritten(String endpoint) {
        var before = rows.counts();
        assertRefused(create(endpoint, null), endpoint);
        assertRefused(create(endpoint, "private-" + endpoint), endpoint);
        assertThat(rows.counts()).isEqualTo(before);
    }

    /** An endpoint's url goes through the very check a schedule's endpoint does, at create and at PATCH. */
    @ParameterizedTest(name = "{0}")
    @ValueSource(
            strings = {
                "http://127.0.0.1/hook",
                "http://[::1]/hook",
                "http://169.254.169.254/",
                "http://10.0.0.1/",
                "http://localhost./"
            })
    void anEndpointsInternalUrlIsRefusedAtCreateAndPatch(String url) {
        String key = ContractServer.TEST_KEY;
        long before = rows.count("endpoints");
        var created = node.api.call("POST", "/v1/endpoints", key, "{\"url\":\"" + url + "\"}");
        assertThat(created.status()).as(created.raw()).isEqualTo(400);
        assertThat(created.json().at("/error/code").asText()).isEqualTo("endpoint_not_allowed");
        assertThat(created.json().at("/error/param").asText()).isEqualTo("url");
        assertThat(rows.count("endpoints")).isEqualTo(before);

        var ok = node.api.call("POST", "/v1/endpoints", key, "{\"url\":\"https://93.184.216.34/hook\"}");
        String path = "/v1/endpoints/" + ok.json().get("id").asText();
        String stored = node.api.call("GET", path, key, null).raw();
        var patched = node.api.call("PATCH", path, key, "{\"url\":\"" + url + "\"}");
        assertThat(patched.json().at("/error/code").asText()).as(patched.raw()).isEqualTo("endpoint_not_allowed");
        assertThat(node.api.call("GET", path, key, null).raw()).isEqualTo(stored);
    }

    @Test
    void aNameThatResolvesToAnInternalAddressIsRefused() throws UnknownHostException {
        String host = InetAddress.getLocalHost().getHostName();
        InetAddress[] addresses = InetAddress.getAllByName(host);
        Assumptions.assumeTrue(
                Arrays.stream(addresses)
                        .allMatch(a -> a.isLoopbackAddress() || a.isSiteLocalAddress() || a.isLinkLocalAddress()),
                () -> "this machine's name " + host + " resolves to " + Arrays.toString(addresses));
        var before = rows.counts();
        assertRefused(create("http://" + host + ":9000/hook", null), host);
        assertThat(rows.counts()).isEqualTo(before);
    }

    @Test
    void aPatchToAnInternalEndpointIsRefusedAndLeavesTheScheduleAsItWas() {
        var created = create("https://93.184.216.34/hook", null);
        assertThat(created.status()).as(created.raw()).isEqualTo(201);
        String id = created.json().get("id").asText();
        for (String endpoint : new String[] {
            "http://127.0.0.1/",
            "http://localhost/",
            "http://169.254.169.254/",
            "http://[::ffff:10.0.0.1]/",
            "http://metadata.google.internal/"
        }) {
            var r = node.api.call(
                    "PATCH", "/v1/schedules/" + id, ContractServer.TEST_KEY, "{\"endpoint\":\"" + endpoint + "\"}");
            assertRefused(r, endpoint);
        }
        var now = node.api
                .call("GET", "/v1/schedules/" + id, ContractServer.TEST_KEY, null)
                .json();
        assertThat(now.get("endpoint").asText()).isEqualTo("https://93.184.216.34/hook");
        assertThat(now.get("updated_at").asText())
                .isEqualTo(created.json().get("updated_at").asText());
        assertThat(node.api
                        .call("DELETE", "/v1/schedules/" + id, ContractServer.TEST_KEY, null)
                        .status())
                .isEqualTo(200);
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(
            strings = {
                "https://93.184.216.34/hook",
                "http://8.8.8.8:8080/x",
                "https://[2606:2800:220:1:248:1893:25c8:1946]/hook",
                "http://100.63.255.255/",
                "http://100.128.0.1/",
                "http://172.15.255.255/",
                "http://172.32.0.1/",
                "http://169.253.255.255/",
                "http://[2001:4860:4860::8888]/"
            })
    void aPublicLiteralAddressIsAcceptedAtCreateTime(String endpoint) {
        var before = rows.counts();
        var r = create(endpoint, null);
        assertThat(r.status()).as(r.raw()).isEqualTo(201);
        String id = r.json().get("id").asText();
        assertThat(r.json().get("endpoint").asText()).isEqualTo(endpoint);
        // far in the future: its one delivery is written with it, and cancelled when it is deleted straight away
        assertThat(rows.counts().deliveries()).isEqualTo(before.deliveries() + 1);
        var deleted = node.api.call("DELETE", "/v1/schedules/" + id, ContractServer.TEST_KEY, null);
        assertThat(deleted.status()).isEqualTo(200);
        assertThat(deleted.json().get("status").asText()).isEqualTo("deleted");
        assertThat(node.api
                        .call("GET", "/v1/deliveries?schedule_id=" + id, ContractServer.TEST_KEY, null)
                        .json()
                        .get("data"))
                .extracting(d -> d.get("status").asText())
                .containsExactly("cancelled");
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(
            strings = {
                "http://example.com@127.0.0.1/",
                "http://user:pw@10.0.0.1/",
                "ftp://127.0.0.1/",
                "file:///etc/passwd",
                "gopher://127.0.0.1:70/",
                "http:///nohost",
                "//127.0.0.1/",
                "127.0.0.1",
                // an IPv4 address not written as four decimal numbers: refused before any lookup, saying what it means
                "http://127.1/",
                "http://127.1:19001/",
                "http://0x7f.1/",
                "http://0x7f000001/",
                "http://0177.0.0.1/",
                "http://2130706433/",
                "http://0/",
                // a port that is empty or has a leading zero
                "http://example.com:/",
                "http://example.com:019001/"
            })
    void otherSchemesAndCredentialsAreRefusedAsInvalid(String endpoint) {
        var before = rows.counts();
        var r = create(endpoint, null);
        assertThat(r.status()).as(r.raw()).isEqualTo(400);
        assertThat(r.json().at("/error/code").asText()).as(r.raw()).isEqualTo("endpoint_invalid");
        assertThat(r.json().at("/error/param").asText()).isEqualTo("endpoint");
        if (endpoint.matches("http://(127\\.1|0x7f|0177|2130706433).*"))
            assertThat(r.json().at("/error/message").asText()).as(r.raw()).contains("four decimal numbers, 127.0.0.1");
        if (endpoint.startsWith("http://example.com:"))
            assertThat(r.json().at("/error/message").asText()).as(r.raw()).containsAnyOf("empty", "leading zero");
        assertThat(rows.counts()).isEqualTo(before);
    }
}
