package dev.idem.core;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class DestinationTest {
    @Test
    void aDestinationIsTheUrlWithLowerCaseSchemeAndHostTheSchemesDefaultPortAndNoQuery() {
        assertThat(Destination.of("https://API.Example.com/hooks/a?x=1"))
                .isEqualTo("https://api.example.com:443/hooks/a");
        assertThat(Destination.of("https://api.example.com:443/other")).isEqualTo("https://api.example.com:443/other");
        assertThat(Destination.of("http://api.example.com/")).isEqualTo("http://api.example.com:80/");
        assertThat(Destination.of("http://api.example.com")).isEqualTo("http://api.example.com:80/");
        assertThat(Destination.of("http://api.example.com:8080/A/b#frag")).isEqualTo("http://api.example.com:8080/A/b");
        assertThat(Destination.of("http://user:pw@api.example.com:8080/x")).isEqualTo("http://api.example.com:8080/x");
        assertThat(Destination.of("http://[2001:db8::1]:9000/x")).isEqualTo("http://[2001:db8::1]:9000/x");
    }

    @Test
    void anEndpointIsADestinationOfItsOwnUnderItsUrlsHost() {
        String a = Destination.ofEndpoint("https://API.example.com/hooks?customer=1", "ep_a");
        String b = Destination.ofEndpoint("https://api.example.com/hooks?customer=2", "ep_b");
        assertThat(a).isEqualTo("https://api.example.com:443/hooks#ep_a");
        assertThat(a).isNotEqualTo(b).isNotEqualTo(Destination.of("https://api.example.com/hooks"));
        assertThat(Destination.hostOf(a)).isEqualTo(Destination.hostOf(b)).isEqualTo("https://api.example.com:443");
        assertThat(Destination.ofEndpoint("http://h.example", "ep_c")).isEqualTo("http://h.example:80/#ep_c");
    }

    @Test
    void twoPathsOfOneHostAreTwoDestinationsOfOneHost() {
        String a = Destination.of("http://h.example:9000/ok/a");
        String b = Destination.of("http://h.example:9000/hang/b?token=s3cret");
        assertThat(a).isNotEqualTo(b);
        assertThat(b).doesNotContain("s3cret");
        assertThat(Destination.hostOf(a)).isEqualTo("http://h.example:9000").isEqualTo(Destination.hostOf(b));
        assertThat(Destination.hostOf(Destination.of("http://[2001:db8::1]:9000/x")))
                .isEqualTo("http://[2001:db8::1]:9000");
    }

    @Test
    void anEndpointThatDoesNotParseIsADestinationAndAHostOfItsOwnWithABoundedKey() {
        assertThat(Destination.of("http://exa mple.com/x")).isEqualTo("http://exa mple.com/x");
        assertThat(Destination.of("https://" + "a".repeat(2000) + ".com/")).hasSize(300);
        assertThat(Destination.hostOf("not a url")).isEqualTo("not a url");
    }
}
