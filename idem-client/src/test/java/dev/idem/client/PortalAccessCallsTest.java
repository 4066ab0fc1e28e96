package dev.idem.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import dev.idem.client.model.ApplicationFields;
import dev.idem.client.model.PortalAccess;
import dev.idem.client.model.PortalAccessRequest;
import dev.idem.client.testing.TestNode;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@link Applications#portalAccess} and {@link Applications#revokePortalAccess} against a real node. */
class PortalAccessCallsTest {
    @TempDir
    static Path dir;

    static TestNode node;
    static IdemClient idem;

    @BeforeAll
    static void start() {
        node = new TestNode(dir);
        idem = node.client();
    }

    @AfterAll
    static void stop() {
        node.close();
    }

    /** Opens a portal session with a link's token, as the page does: the HTTP status. */
    private static int exchange(String token) throws Exception {
        HttpRequest r = HttpRequest.newBuilder(URI.create(node.url() + "/v1/portal/sessions"))
                .header("Authorization", "Bearer " + token)
                .header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString("{}"))
                .build();
        return HttpClient.newHttpClient()
                .send(r, HttpResponse.BodyHandlers.discarding())
                .statusCode();
    }

    @Test
    void aLinkIsMintedWithWhatItGrantsOpensASessionAndIsRevokedByItsLabel() throws Exception {
        idem.applications().create(ApplicationFields.create("Acme").uid("portal_acme"));
        PortalAccess link = idem.applications()
                .portalAccess(
                        "portal_acme",
                        PortalAccessRequest.defaults()
                                .expiry("24h")
                                .capabilities("view", "replay", "send_test")
                                .session("user_981"));
        assertThat(link.token()).startsWith("pt_");
        assertThat(link.url()).isEqualTo(node.url() + "/portal#token=" + link.token());
        assertThat(link.capabilities()).containsExactly("view", "replay", "send_test");
        assertThat(link.session()).isEqualTo("user_981");
        assertThat(Duration.between(Instant.now(), link.expiresAt()))
                .isBetween(Duration.ofHours(23), Duration.ofHours(24));
        assertThat(link.toString()).doesNotContain(link.token());
        assertThat(exchange(link.token())).isEqualTo(201);

        PortalAccess defaults = idem.applications().portalAccess("portal_acme", PortalAccessRequest.defaults());
        assertThat(defaults.capabilities()).containsExactly("view", "manage_endpoints", "replay");

        assertThat(idem.applications().revokePortalAccess("portal_acme", "user_981"))
                .isEqualTo(1);
        assertThat(exchange(link.token())).isEqualTo(401);
        assertThat(exchange(defaults.token())).isEqualTo(201);
        assertThat(idem.applications().revokePortalAccess("portal_acme", null)).isEqualTo(1);
        assertThat(exchange(defaults.token())).isEqualTo(401);

        IdemException refused = catchThrowableOfType(
                () -> idem.applications()
                        .portalAccess(
                                "portal_acme", PortalAccessRequest.defaults().expiry("30d")),
                IdemException.class);
        assertThat(refused.httpStatus()).isEqualTo(400);
        assertThat(refused.param()).isEqualTo("expiry");
    }
}
