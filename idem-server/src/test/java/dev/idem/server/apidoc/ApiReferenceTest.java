package dev.idem.server.apidoc;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/**
 * The API reference the build rendered (idem-server's {@code process-test-classes} phase runs {@link ApiReference})
 * has an entry for every operation, response status, schema and schema field of the openapi.json the server serves,
 * and the copy committed as docs/api-reference.md is that page, so a reader of the repository never reads a stale one.
 */
class ApiReferenceTest {
    private static final Path RENDERED = Path.of("target", "api-reference", "api-reference.md");

    @Test
    void the_rendered_reference_covers_every_route_status_schema_and_field_of_the_served_document() throws IOException {
        assertThat(RENDERED)
                .as("the build renders the reference before the tests run (exec-maven-plugin, "
                        + "execution api-reference in idem-server/pom.xml)")
                .exists();
        String page = Files.readString(RENDERED, StandardCharsets.UTF_8);
        JsonNode served = served();

        assertThat(ApiReference.missing(served, page)).isEmpty();
        assertThat(page).contains("### `POST /v1/schedules`", "| 201 |", "### Schedule\n", "| `next_fire_at` |");
    }

    /** The page a reader opens on the repository, and the rendered one it must equal. */
    private static final Path COMMITTED = Path.of("..", "docs", "api-reference.md");

    @Test
    void the_committed_reference_in_docs_is_the_one_rendered_from_the_served_document() throws IOException {
        String rendered = ApiReference.render(served());
        assertThat(Files.readString(COMMITTED, StandardCharsets.UTF_8))
                .as("docs/api-reference.md is stale (openapi.json changed): run `mvn -pl idem-server "
                        + "process-test-classes`, then `cp idem-server/target/api-reference/api-reference.md "
                        + "docs/api-reference.md`")
                .isEqualTo(rendered);
    }

    @Test
    void a_route_the_rendering_lacks_is_reported_by_method_and_path() throws IOException {
        JsonNode served = served();
        String page = ApiReference.render(served);
        ObjectNode grown = served.deepCopy();
        ((ObjectNode) grown.path("paths"))
                .putObject("/v1/not-rendered")
                .putObject("get")
                .putObject("responses")
                .putObject("200")
                .put("description", "ok");
        ((ObjectNode) grown.path("paths").path("/v1/schedules").path("post").path("responses"))
                .putObject("418")
                .put("description", "a status the page lacks");
        ((ObjectNode) grown.path("components").path("schemas").path("Schedule").path("properties"))
                .putObject("not_rendered")
                .put("type", "string");
        ((ObjectNode) grown.path("components").path("schemas"))
                .putObject("NotRendered")
                .put("type", "object");

        assertThat(ApiReference.missing(grown, page))
                .containsExactlyInAnyOrder(
                        "GET /v1/not-rendered",
                        "POST /v1/schedules 418",
                        "schema Schedule.not_rendered",
                        "schema NotRendered");
    }

    @Test
    void enum_values_nullable_types_and_references_are_spelled_out() throws IOException {
        String page = ApiReference.render(served());

        // header_profile's values, catch_up's, a schedule's statuses: what openapi-generator's markdown left out
        assertThat(page).contains("`standard`, `rrule`, `schedstack`", "`latest`, `all`, `none`");
        assertThat(page).contains("integer or null");
        assertThat(page).contains("[Schedule](#schema-schedule)", "<a id=\"schema-schedule\"></a>");
    }

    private static JsonNode served() throws IOException {
        try (InputStream in = ApiReferenceTest.class.getResourceAsStream("/openapi.json")) {
            assertThat(in).as("openapi.json on the server's classpath").isNotNull();
            return new ObjectMapper().readTree(in);
        }
    }
}
