package dev.idem.core;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class DestinationTest {
    @Test
    void aDestinationIsTheSchemeHostAndPortWithTheSchemesDefaultPort() {
        assertThat(Destination.of("https://API.Example.com/hooks/a?x=1")).isEqualTo("https://api.example.com:443");
        assertThat(Destination.of("https://api.example.com:443/other")).isEqualTo("https://api.example.com:443");
        assertThat(Destination.of("http://api.example.com/")).isEqualTo("http://api.example.com:80");
        assertThat(Destination.of("http://api.example.com:8080/")).isEqualTo("http://api.example.com:8080");
        assertThat(Destination.of("http://[2001:db8::1]:9000/x")).isEqualTo("http://[2001:db8::1]:9000");
    }

    @Test
    void anEndpointThatDoesNotParseIsADestinationOfItsOwnWithABoundedKey() {
        assertThat(Destination.of("http://exa mple.com/x")).isEqualTo("http://exa mple.com/x");
        assertThat(Destination.of("https://" + "a".repeat(2000) + ".com/")).hasSize(300);
    }
}
