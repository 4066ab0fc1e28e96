package dev.idem.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

class EndpointGuardTest {
    private final EndpointGuard guard = EndpointGuard.of(false);

    @ParameterizedTest
    @ValueSource(
            strings = {
                "http://127.0.0.1/hook",
                "http://127.1.2.3:8080/",
                "http://[::1]/",
                "http://0.0.0.0/",
                "http://[::]/",
                "http://10.0.0.1/",
                "http://10.255.255.255/",
                "http://172.16.0.1/",
                "http://172.31.255.254/",
                "http://192.168.1.1/",
                "http://169.254.1.1/",
                "http://169.254.169.254/latest/meta-data/",
                "http://100.64.0.1/",
                "http://100.127.255.255/",
                "http://100.100.100.200/",
                "http://224.0.0.1/",
                "http://239.255.255.250/",
                "http://255.255.255.255/",
                "http://240.0.0.1/",
                "http://0.1.2.3/",
                "http://[fe80::1]/",
                "http://[febf::1]/",
                "http://[fc00::1]/",
                "http://[fd12:3456::1]/",
                "http://[fd00:ec2::254]/",
                "http://[ff02::1]/",
                "http://[::ffff:127.0.0.1]/",
                "http://[::ffff:10.0.0.1]/",
                "http://[::ffff:169.254.169.254]/",
                "http://[::ffff:7f00:1]/",
                "http://[::127.0.0.1]/",
                "http://[::192.168.0.1]/",
                "http://[64:ff9b::a00:1]/",
                "http://[2002:c0a8:101::1]/",
                "http://localhost/",
                "http://LOCALHOST:8080/x",
                "http://api.localhost/",
                "http://localhost./",
                "http://metadata.google.internal/computeMetadata/v1/",
                "http://metadata.goog/",
                "http://instance-data/"
            })
    void refusesInternalAddressesAtCreateTime(String endpoint) {
        assertThat(guard.refusal(endpoint))
                .as(endpoint)
                .isPresent()
                .get()
                .asString()
                .contains("--allow-private-endpoints");
    }

    @ParameterizedTest
    @ValueSource(
            strings = {
                "http://8.8.8.8/",
                "https://1.1.1.1/hook",
                "http://172.32.0.1/",
                "http://172.15.255.255/",
                "http://100.128.0.1/",
                "http://100.63.255.255/",
                "http://169.253.0.1/",
                "http://192.169.0.1/",
                "http://[2606:4700:4700::1111]/",
                "http://[::ffff:8.8.8.8]/",
                "http://[2002:808:808::1]/",
                "http://[64:ff9b::808:808]/"
            })
    void acceptsPublicAddresses(String endpoint) {
        assertThat(guard.refusal(endpoint)).as(endpoint).isEmpty();
    }

    @ParameterizedTest
    @ValueSource(
            strings = {
                "ftp://example.com/",
                "file:///etc/passwd",
                "gopher://example.com/",
                "example.com/hook",
                "http://",
                "https:///path",
                "not a url",
                "",
                "http://user:pass@example.com/",
                "http://127.1/"
            })
    void refusesWhatIsNotAnHttpUrl(String endpoint) {
        assertThat(guard.refusal(endpoint)).as(endpoint).isPresent();
    }

    @Test
    void namesTheSchemeItRefuses() {
        assertThat(guard.refusal("ftp://example.com/x"))
                .contains("endpoint must be an http or https URL, got scheme 'ftp'");
    }

    @Test
    void aHostNameResolvingToLoopbackIsRefused() {
        EndpointGuard g = EndpointGuard.of(false, fakeDns(Map.of("sneaky.example", "127.0.0.1")));
        assertThat(g.refusal("https://sneaky.example/hook"))
                .get()
                .asString()
                .contains("'sneaky.example' resolves to 127.0.0.1, which is loopback");
    }

    @Test
    void theRealLocalhostIsRefusedAtConnectTime() {
        assertThatThrownBy(() -> guard.checkBeforeConnect("http://localhost:9/hook"))
                .isInstanceOf(EndpointGuard.EndpointRefusedException.class)
                .hasMessageContaining("loopback");
    }

    @Test
    void aNameWithOnePrivateAddressAmongPublicOnesIsRefused() {
        EndpointGuard g = EndpointGuard.of(false, host ->
                new InetAddress[] {InetAddress.getByName("93.184.216.34"), InetAddress.getByName("10.1.2.3")});
        assertThat(g.refusal("https://multi.example/")).get().asString().contains("10.1.2.3");
    }

    @Test
    void dnsRebindingIsCaughtAtConnectTime() throws Exception {
        String[] answer = {"93.184.216.34"};
        EndpointGuard g = EndpointGuard.of(false, host -> new InetAddress[] {InetAddress.getByName(answer[0])});
        assertThat(g.refusal("https://rebind.example/hook")).isEmpty();
        g.checkBeforeConnect("https://rebind.example/hook");
        answer[0] = "169.254.169.254";
        assertThatThrownBy(() -> g.checkBeforeConnect("https://rebind.example/hook"))
                .isInstanceOf(EndpointGuard.EndpointRefusedException.class)
                .hasMessageContaining("169.254.169.254")
                .hasMessageContaining("metadata");
    }

    @Test
    void anUnresolvableNameIsAcceptedAtCreateTimeButRefusedAtConnectTime() {
        EndpointGuard g = EndpointGuard.of(false, host -> {
            throw new UnknownHostException(host);
        });
        assertThat(g.refusal("https://not-yet.example/hook")).isEmpty();
        assertThatThrownBy(() -> g.checkBeforeConnect("https://not-yet.example/hook"))
                .isInstanceOf(EndpointGuard.EndpointRefusedException.class)
                .hasMessageContaining("does not resolve");
    }

    @Test
    void allowPrivateEndpointsLetsLoopbackThroughButStillChecksTheScheme() throws Exception {
        EndpointGuard open = EndpointGuard.of(true);
        assertThat(open.refusal("http://127.0.0.1:8080/hook")).isEmpty();
        assertThat(open.refusal("http://localhost/hook")).isEmpty();
        open.checkBeforeConnect("http://localhost:1/hook");
        assertThat(open.refusal("ftp://127.0.0.1/")).isPresent();
    }

    private static EndpointGuard.Resolver fakeDns(Map<String, String> records) {
        return host -> {
            String ip = records.get(host);
            if (ip == null) throw new UnknownHostException(host);
            return new InetAddress[] {InetAddress.getByName(ip)};
        };
    }

    @Test
    void resolvingForAConnectionReturnsTheCheckedAddressesOrRefusesThem() throws Exception {
        EndpointGuard g = EndpointGuard.of(
                false, fakeDns(Map.of("fine.example", "93.184.215.14", "sneaky.example", "10.0.0.7", "::1", "::1")));
        assertThat(g.resolveForConnect("fine.example"))
                .extracting(InetAddress::getHostAddress)
                .containsExactly("93.184.215.14");
        assertThatThrownBy(() -> g.resolveForConnect("sneaky.example"))
                .isInstanceOf(EndpointGuard.RefusedHostException.class)
                .hasMessageContaining("10.0.0.7");
        assertThatThrownBy(() -> g.resolveForConnect("[::1]")).isInstanceOf(EndpointGuard.RefusedHostException.class);
        assertThatThrownBy(() -> g.resolveForConnect("metadata.google.internal"))
                .isInstanceOf(EndpointGuard.RefusedHostException.class);
        assertThat(EndpointGuard.of(true, fakeDns(Map.of("sneaky.example", "10.0.0.7")))
                        .resolveForConnect("sneaky.example"))
                .extracting(InetAddress::getHostAddress)
                .containsExactly("10.0.0.7");
    }

    /** Issue 18.1, 18.2, 18.9: what no connection can go to is refused with or without --allow-private-endpoints, at create and connect time. */
    @ParameterizedTest
    @ValueSource(
            strings = {
                "http://127.0.0.1:99999/x",
                "http://example.com:65536/",
                "http://example.com:0/",
                "http://8.8.8.8:0/",
                "http://example.com:99999999999/x",
                "http://[fe80::1%25lo]/x",
                "http://[fe80::1%lo]/x",
                "https://[2001:db8::1%251]:443/"
            })
    void anUnusablePortOrAZoneIdIsRefusedWhateverTheNetwork(String endpoint) {
        for (EndpointGuard g : List.of(EndpointGuard.of(false), EndpointGuard.of(true))) {
            assertThat(g.refusal(endpoint)).as(endpoint).isPresent();
            assertThat(EndpointGuard.syntaxError(endpoint)).as(endpoint).isPresent();
            assertThatThrownBy(() -> g.checkBeforeConnect(endpoint))
                    .as(endpoint)
                    .isInstanceOf(EndpointGuard.EndpointRefusedException.class);
        }
        assertThat(EndpointGuard.syntaxError("http://example.com:70000/x"))
                .contains("endpoint port must be between 1 and 65535, got 70000");
    }

    @Test
    void portsOneAndTheHighestAreUsable() {
        assertThat(EndpointGuard.syntaxError("http://example.com:1/")).isEmpty();
        assertThat(EndpointGuard.syntaxError("https://example.com:65535/x")).isEmpty();
        assertThat(EndpointGuard.syntaxError("https://[2001:db8::1]:8443/x")).isEmpty();
    }

    /**
     * An IPv4 address not written as four decimal numbers means one thing to browsers and curl and another to Java's
     * resolver (or nothing): refused at create and at connect time, with or without --allow-private-endpoints, with
     * the address it would mean, never taken for a bad port.
     */
    @ParameterizedTest
    @CsvSource({
        "http://127.1:19001/, 127.0.0.1",
        "http://0x7f000001/, 127.0.0.1",
        "http://0X7F000001:8080/x, 127.0.0.1",
        "http://0177.0.0.1/, 127.0.0.1",
        "http://2130706433/, 127.0.0.1",
        "http://127.0.0.1./, 127.0.0.1",
        "http://0x7f.1/, 127.0.0.1",
        "http://10.1/, 10.0.0.1",
        "http://169.254.43518/, 169.254.169.254",
        "http://0xa9.0xfe.0xa9.0xfe/, 169.254.169.254",
        "http://08.8.8.8/, ",
        "http://1.2.3.4.5/, ",
        "http://example.123/, ",
        "http://256.1.1.1/, ",
        "http://1.2.3.0x100/, "
    })
    void anIpv4AddressInAnyFormButFourDecimalNumbersIsRefusedWithWhatItMeans(String endpoint, String means) {
        for (EndpointGuard g : List.of(EndpointGuard.of(false), EndpointGuard.of(true))) {
            String why = g.refusal(endpoint).orElseThrow(() -> new AssertionError(endpoint + " was accepted"));
            assertThat(why).as(endpoint).doesNotContain("port").doesNotContain("no host");
            if (means != null) assertThat(why).as(endpoint).contains("four decimal numbers, " + means);
            else assertThat(why).as(endpoint).contains("is not an IPv4 address");
            assertThatThrownBy(() -> g.checkBeforeConnect(endpoint))
                    .as(endpoint)
                    .isInstanceOf(EndpointGuard.EndpointRefusedException.class)
                    .hasMessage(why);
        }
    }

    @ParameterizedTest
    @ValueSource(
            strings = {"http://8.8.8.8/", "http://93.184.216.34:8080/x", "http://0.0.0.0.example.com/", "http://x1/"})
    void fourDecimalNumbersAndHostNamesEndingInLettersAreNotNumericForms(String endpoint) {
        assertThat(EndpointGuard.syntaxError(endpoint)).as(endpoint).isEmpty();
    }

    @Test
    void anEmptyPortOrOneWithALeadingZeroIsRefusedSayingSo() {
        assertThat(EndpointGuard.syntaxError("http://h:/"))
                .contains("endpoint port is empty ('h:'): give a port between 1 and 65535, or no ':' for the scheme's"
                        + " default");
        assertThat(EndpointGuard.syntaxError("https://[2001:db8::1]:/x"))
                .get()
                .asString()
                .contains("port is empty");
        assertThat(EndpointGuard.syntaxError("http://example.com:019001/"))
                .contains("endpoint port '019001' has a leading zero: write it as 19001");
        assertThat(EndpointGuard.syntaxError("http://example.com:00/"))
                .contains("endpoint port must be between 1 and 65535, got 0");
        assertThat(EndpointGuard.of(true).refusal("http://localhost:019001/"))
                .get()
                .asString()
                .contains("leading zero");
    }
}
