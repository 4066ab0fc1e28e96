package dev.idem.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.openqa.selenium.By;
import org.openqa.selenium.Keys;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.interactions.Actions;
import org.openqa.selenium.logging.LogEntry;
import org.openqa.selenium.logging.LogType;
import org.openqa.selenium.support.ui.ExpectedConditions;
import org.openqa.selenium.support.ui.Select;

/**
 * The dashboard's pages of the fan-out model in the same headless chromium as {@link DashboardBrowserTest}, each shown
 * with real data made through the API on a real node with real receivers (one answering 200, one 500): applications;
 * endpoints with their health (success rate, last failure, disabled state) as the API computes it; the event type
 * catalogue; messages, searched by delivery status, and one message's delivery to each endpoint down to each
 * delivery's attempts and its own page. On every page axe-core finds no violation, Tab reaches every control and the
 * page's policy is never broken. Screenshots go where {@link DashboardBrowserTest} keeps its own.
 */
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class DashboardFanoutBrowserTest extends DashboardBrowserFixture {
    String acme;
    String globex;
    String healthy;
    String broken;
    String disabled;
    String failedMessage;
    String goodMessage;

    @BeforeAll
    void makeApplicationsEndpointsAndMessagesThenSignIn() {
        failing.answer.set("{\"error\":\"database is down\"}");

        acme = id(post("/v1/applications", "{\"name\":\"Acme\",\"uid\":\"acme\",\"metadata\":{\"plan\":\"gold\"}}"));
        globex = id(post("/v1/applications", "{\"name\":\"Globex\",\"uid\":\"globex\",\"rate_limit\":5}"));
        post(
                "/v1/event-types",
                "{\"name\":\"invoice.paid\",\"description\":\"An invoice was paid in full\",\"schema\":{\"type\":"
                        + "\"object\",\"required\":[\"invoice\"]},\"example\":{\"invoice\":\"inv_1\"}}");
        post("/v1/event-types", "{\"name\":\"report.daily\",\"description\":\"Old daily report\",\"deprecated\":true}");
        healthy = id(post(
                "/v1/endpoints",
                "{\"url\":\"" + ok.url("/acme") + "\",\"application\":\"acme\",\"event_types\":[\"invoice.*\"]}"));
        broken = id(post("/v1/endpoints", "{\"url\":\"" + failing.url("/acme-down") + "\",\"application\":\"acme\"}"));
        disabled = id(post(
                "/v1/endpoints",
                "{\"url\":\"" + ok.url("/globex") + "\",\"application\":\"globex\",\"disabled\":true}"));
        failedMessage = id(post(
                "/v1/messages",
                "{\"event_type\":\"invoice.paid\",\"application\":\"acme\",\"payload\":{\"invoice\":\"inv_7\"}}"));
        goodMessage = id(post(
                "/v1/messages", "{\"event_type\":\"report.daily\",\"application\":\"globex\",\"payload\":{\"n\":1}}"));
        // the healthy endpoint has succeeded once, the broken one has failed at least once
        await().atMost(Duration.ofSeconds(30))
                .until(() -> endpoint(healthy).at("/health/attempts").asInt() == 1
                        && endpoint(broken).at("/health/failures").asInt() >= 1);

        wait.ignoring(org.openqa.selenium.StaleElementReferenceException.class);
        browser.get(base);
        wait.until(ExpectedConditions.visibilityOfElementLocated(By.id("api-key")))
                .sendKeys(TestNode.TEST_KEY);
        browser.findElement(By.id("key-submit")).click();
        wait.until(ExpectedConditions.visibilityOfElementLocated(By.id("app")));
    }

    private ApiClientForTests.Reply post(String path, String body) {
        var r = node.call("POST", path, body);
        assertThat(r.status()).as(r.raw()).isEqualTo(201);
        return r;
    }

    private static String id(ApiClientForTests.Reply r) {
        return r.json().get("id").asText();
    }

    private JsonNode endpoint(String id) {
        return node.call("GET", "/v1/endpoints/" + id, null).json();
    }

    /** Goes to a page by its link, and waits for the element that says it is drawn. */
    private void visit(String fragment, By drawn) {
        browser.get(base + fragment);
        wait.until(ExpectedConditions.visibilityOfElementLocated(drawn));
    }

    private WebElement row(String table, String id) {
        return wait.until(ExpectedConditions.visibilityOfElementLocated(
                By.cssSelector("#" + table + " tr[data-id='" + id + "']")));
    }

    /** axe-core finds nothing, Tab reaches every control drawn, and the page's policy refused nothing. */
    private void assertAccessibleAndWithinPolicy(String page) throws Exception {
        assertThat(Chromium.axeViolations(browser)).as(page).isEmpty();
        @SuppressWarnings("unchecked")
        List<Object> controls = (List<Object>) js("return [...document.querySelectorAll("
                + "'button, input, select, textarea, a[href], summary')].filter(e => e.offsetParent !== null)");
        js("document.activeElement && document.activeElement.blur(); window.scrollTo(0, 0);");
        Set<Object> reached = new HashSet<>();
        // a date and time field takes several presses (one per part)
        for (int i = 0; i < controls.size() * 4 + 10; i++) {
            new Actions(browser).sendKeys(Keys.TAB).perform();
            reached.add(js("return document.activeElement"));
        }
        assertThat(reached).as("%s: every control reached by Tab", page).containsAll(controls);
        List<String> refused = browser.manage().logs().get(LogType.BROWSER).getAll().stream()
                .map(LogEntry::getMessage)
                .filter(m -> m.contains("Content Security Policy") || m.contains("Refused to"))
                .toList();
        assertThat(refused).as(page).isEmpty();
    }

    @Test
    void applicationsAreListedAndOneShowsItsEndpointsWithTheirHealth() throws Exception {
        visit("#/applications", By.cssSelector("#applications tr.application"));
        WebElement a = row("applications", acme);
        assertThat(a.findElement(By.cssSelector(".application-name")).getText()).isEqualTo("Acme");
        assertThat(a.getText()).contains("acme", "active", "{\"plan\":\"gold\"}");
        assertThat(row("applications", globex).getText()).contains("Globex", "5/s");
        screenshot("applications");
        assertAccessibleAndWithinPolicy("applications");

        a.findElement(By.cssSelector("a.application-link")).click();
        wait.until(ExpectedConditions.textToBe(By.id("application-id"), acme));
        assertThat(field("application-fields", "Name")).isEqualTo("Acme");
        wait.until(d -> d.findElements(By.cssSelector("#application-endpoints tr.endpoint"))
                        .size()
                == 2);
        assertThat(row("application-endpoints", healthy).getText()).contains(ok.url("/acme"), "invoice.*");
        assertThat(row("application-endpoints", broken).getText()).contains(failing.url("/acme-down"));
        screenshot("application");
        assertAccessibleAndWithinPolicy("an application");
        // its messages, one click away
        browser.findElement(By.cssSelector("a.application-messages")).click();
        wait.until(d -> shown("messages").equals(List.of(failedMessage)));
    }

    @Test
    void endpointsShowTheirSuccessRateLastFailureAndDisabledStateAsTheApiComputesThem() throws Exception {
        visit("#/endpoints", By.cssSelector("#endpoints tr.endpoint"));
        JsonNode good = endpoint(healthy).get("health");
        JsonNode bad = endpoint(broken).get("health");
        assertThat(good.get("success_rate").asDouble()).isEqualTo(1.0);
        assertThat(row("endpoints", healthy)
                        .findElement(By.cssSelector(".success-rate"))
                        .getText())
                .isEqualTo("100% of 1 attempts");
        assertThat(row("endpoints", healthy)
                        .findElement(By.cssSelector(".last-failure"))
                        .getText())
                .isEqualTo("none");
        WebElement down = row("endpoints", broken);
        assertThat(down.findElement(By.cssSelector(".success-rate")).getText()).startsWith("0% of ");
        assertThat(down.findElement(By.cssSelector(".last-failure")).getText())
                .contains(bad.get("last_failure").asText());
        // a retry may fail again meanwhile: the time shown is one the API gave, not before the first failure seen
        assertThat(down.findElement(By.cssSelector(".last-failure time")).getAttribute("datetime"))
                .isGreaterThanOrEqualTo(bad.get("last_failure_at").asText());
        WebElement off = row("endpoints", disabled);
        assertThat(off.findElement(By.cssSelector(".endpoint-state")).getText())
                .isEqualTo(
                        "disabled " + endpoint(disabled).get("disabled_reason").asText());
        assertThat(off.findElement(By.cssSelector(".success-rate")).getText()).isEqualTo("no attempt yet");
        screenshot("endpoints");
        assertAccessibleAndWithinPolicy("endpoints");

        // one application's, by uid; an unknown one is said beside the field
        browser.findElement(By.id("endpoints-application")).sendKeys("globex");
        browser.findElement(By.id("endpoints-filter")).click();
        wait.until(d -> shown("endpoints").equals(List.of(disabled)));
        assertThat(browser.getCurrentUrl()).endsWith("#/endpoints?application=globex");
        browser.findElement(By.id("endpoints-application")).clear();
        browser.findElement(By.id("endpoints-application")).sendKeys("nobody");
        browser.findElement(By.id("endpoints-filter")).click();
        wait.until(ExpectedConditions.visibilityOfElementLocated(By.id("endpoints-error")));
        assertThat(browser.findElement(By.id("endpoints-error")).getText()).contains("nobody");
        assertThat(shown("endpoints")).isEmpty();

        // one endpoint: its fields, its health and its recent deliveries, each leading to its message
        visit("#/endpoints/" + broken, By.cssSelector("#endpoint-deliveries tr.endpoint-delivery"));
        assertThat(field("endpoint-fields", "URL")).isEqualTo(failing.url("/acme-down"));
        assertThat(Integer.parseInt(field("endpoint-health", "Failures")))
                .isBetween(
                        bad.get("failures").asInt(),
                        endpoint(broken).at("/health/failures").asInt());
        assertThat(field("endpoint-health", "Last failure"))
                .contains(bad.get("last_failure").asText());
        WebElement delivery = browser.findElement(By.cssSelector("#endpoint-deliveries tr.endpoint-delivery"));
        assertThat(delivery.findElement(By.cssSelector("a.message-link")).getText())
                .isEqualTo(failedMessage);
        screenshot("endpoint");
        assertAccessibleAndWithinPolicy("an endpoint");
    }

    @Test
    void theEventTypeCatalogueShowsDescriptionsSchemasExamplesAndDeprecation() throws Exception {
        visit("#/event-types", By.cssSelector("#event-types tr.event-type"));
        WebElement paid = browser.findElement(By.cssSelector("#event-types tr[data-name='invoice.paid']"));
        assertThat(paid.getText()).contains("An invoice was paid in full");
        assertThat(paid.findElement(By.cssSelector(".event-schema")).getText()).contains("\"required\"", "invoice");
        assertThat(paid.findElement(By.cssSelector(".event-example")).getText()).contains("\"inv_1\"");
        WebElement old = browser.findElement(By.cssSelector("#event-types tr[data-name='report.daily']"));
        assertThat(old.getText()).contains("deprecated");
        screenshot("event-types");
        assertAccessibleAndWithinPolicy("event types");
        paid.findElement(By.cssSelector("a.event-type-messages")).click();
        wait.until(d -> shown("messages").equals(List.of(failedMessage)));
    }

    @Test
    void aMessageDrillsDownToEachEndpointsDeliveryAndItsAttempts() throws Exception {
        visit("#/messages", By.cssSelector("#messages tr.message"));
        wait.until(d -> shown("messages").equals(List.of(goodMessage, failedMessage)));
        new Select(browser.findElement(By.id("messages-status"))).selectByVisibleText("failing (retrying or dead)");
        browser.findElement(By.id("messages-filter")).click();
        wait.until(d -> shown("messages").equals(List.of(failedMessage)));
        assertThat(browser.getCurrentUrl()).contains("delivery_status=retrying%2Cdead");
        screenshot("messages");
        assertAccessibleAndWithinPolicy("messages");

        row("messages", failedMessage)
                .findElement(By.cssSelector("a.message-link"))
                .click();
        wait.until(ExpectedConditions.textToBe(By.id("message-id"), failedMessage));
        wait.until(d -> d.findElements(By.cssSelector("#message-deliveries tr.message-delivery"))
                        .size()
                == 2);
        JsonNode m = node.call("GET", "/v1/messages/" + failedMessage, null).json();
        assertThat(field("message-fields", "Payload")).contains("\"inv_7\"");
        WebElement toBroken = browser.findElement(
                By.cssSelector("#message-deliveries tr.message-delivery[data-endpoint='" + broken + "']"));
        WebElement toHealthy = browser.findElement(
                By.cssSelector("#message-deliveries tr.message-delivery[data-endpoint='" + healthy + "']"));
        assertThat(toHealthy.findElement(By.cssSelector(".delivery-status")).getText())
                .isEqualTo("succeeded");
        assertThat(toHealthy.findElement(By.cssSelector(".endpoint-url")).getText())
                .isEqualTo(ok.url("/acme"));
        assertThat(toBroken.findElement(By.cssSelector(".endpoint-url")).getText())
                .isEqualTo(failing.url("/acme-down"));
        String brokenDelivery = toBroken.getAttribute("data-id");
        assertThat(m.get("endpoint_deliveries").findValuesAsText("id")).contains(brokenDelivery);
        // its attempts, inline
        toBroken.findElement(By.cssSelector("button.show-attempts")).click();
        WebElement attempt = wait.until(ExpectedConditions.visibilityOfElementLocated(
                By.cssSelector("tr.attempts[data-delivery='" + brokenDelivery + "'] tr.attempt")));
        assertThat(attempt.findElement(By.cssSelector(".attempt-status")).getText())
                .isEqualTo("500");
        assertThat(attempt.findElement(By.cssSelector(".attempt-response")).getText())
                .isEqualTo("{\"error\":\"database is down\"}");
        assertThat(toBroken.findElement(By.cssSelector("button.show-attempts")).getAttribute("aria-expanded"))
                .isEqualTo("true");
        screenshot("message");
        assertAccessibleAndWithinPolicy("a message");

        // the delivery's own page, and back to its message
        toBroken.findElement(By.cssSelector("a.delivery-link")).click();
        wait.until(ExpectedConditions.textToBe(By.id("delivery-id"), brokenDelivery));
        assertThat(field("delivery-fields", "Message")).isEqualTo(failedMessage);
        assertThat(field("delivery-fields", "Endpoint")).isEqualTo(broken);
        wait.until(ExpectedConditions.visibilityOfElementLocated(By.cssSelector("#delivery-attempts tr.attempt")));
        assertThat(browser.findElement(By.id("request-url")).getText()).isEqualTo(failing.url("/acme-down"));
        screenshot("message-delivery");
        browser.findElement(By.id("delivery-back")).click();
        wait.until(ExpectedConditions.textToBe(By.id("message-id"), failedMessage));
    }

    /** The ids of the rows a table shows, read in one script (the table may be redrawn between two calls). */
    private List<String> shown(String table) {
        @SuppressWarnings("unchecked")
        List<String> ids = (List<String>) js("return [...document.querySelectorAll('#" + table
                + " tbody tr')].filter(r => r.offsetParent !== null).map(r => r.dataset.id)");
        return ids;
    }
}
