package dev.idem.server;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import com.fasterxml.jackson.databind.JsonNode;
import com.sun.net.httpserver.HttpServer;
import dev.idem.core.store.Store;
import dev.idem.store.testing.TestStores;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.openqa.selenium.By;
import org.openqa.selenium.JavascriptExecutor;
import org.openqa.selenium.OutputType;
import org.openqa.selenium.TakesScreenshot;
import org.openqa.selenium.WebDriver;
import org.openqa.selenium.logging.LogEntry;
import org.openqa.selenium.logging.LogType;
import org.openqa.selenium.support.ui.ExpectedConditions;
import org.openqa.selenium.support.ui.WebDriverWait;
import org.slf4j.LoggerFactory;

/**
 * The customer portal in Debian's headless chromium (as the dashboard's tests): a link's session sees only its own
 * application's endpoints and the API answers 404 for another's; a read-only link shows no edit control and the API
 * refuses an edit made by hand; the API's 400 appears next to its field; revoking ends a session already open; the
 * link's token is in no request URL, Referer or node log line; no view breaks the page's policy; a site the project
 * did not name cannot embed it; an endpoint added in the portal receives a message sent through the API, and its
 * attempts show; a delivery is replayed, a test event sent and an endpoint's failed deliveries since a time replayed
 * from the portal (their controls drawn only when the link grants them); axe-core finds no violation on any view and Tab reaches every control. Screenshots go to
 * {@code target/portal-screenshots/}.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class PortalBrowserTest {
    static final Path SCREENSHOTS = Path.of("target", "portal-screenshots");

    @TempDir
    static Path dir;

    Store store;
    TestNode node;
    LoopbackReceiver receiver;
    HttpServer embedder;
    WebDriver browser;
    WebDriverWait wait;
    String base;
    final ListAppender<ILoggingEvent> nodeLog = new ListAppender<>();

    @BeforeAll
    void start() throws Exception {
        nodeLog.start();
        ((Logger) LoggerFactory.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME)).addAppender(nodeLog);
        store = TestStores.sqlite(dir, Clock.systemUTC());
        receiver = new LoopbackReceiver();
        node = new TestNode(store, dir, Clock.systemUTC(), 0);
        base = "http://127.0.0.1:" + node.server.port();
        embedder = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        embedder.createContext("/", ex -> {
            String q = ex.getRequestURI().getRawQuery();
            String link = java.net.URLDecoder.decode(q.substring("link=".length()), StandardCharsets.UTF_8);
            byte[] page = ("<!doctype html><title>Shop</title><h1>Shop settings</h1>"
                            + "<iframe id=portal title=Webhooks width=1200 height=700 src=\"" + link + "\"></iframe>")
                    .getBytes(StandardCharsets.UTF_8);
            ex.getResponseHeaders().set("Content-Type", "text/html; charset=utf-8");
            ex.sendResponseHeaders(200, page.length);
            ex.getResponseBody().write(page);
            ex.close();
        });
        embedder.start();
        browser = Chromium.open(dir.resolve("profile"), 1300, 900, null, true);
        // the page redraws a list after each change: an element read while it is replaced is looked up again
        wait = new WebDriverWait(browser, Duration.ofSeconds(30));
        wait.ignoring(org.openqa.selenium.StaleElementReferenceException.class);
        Files.createDirectories(SCREENSHOTS);
    }

    @AfterAll
    void stop() {
        try {
            if (browser != null) browser.quit();
        } finally {
            if (embedder != null) embedder.stop(0);
            if (node != null) node.close();
            if (receiver != null) receiver.close();
            if (store != null) store.close();
            ((Logger) LoggerFactory.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME)).detachAppender(nodeLog);
        }
    }

    @BeforeEach
    void freshTab() {
        browser.get("about:blank");
        ((JavascriptExecutor) browser).executeScript("try { sessionStorage.clear(); } catch (e) {}");
        browser.manage().logs().get(LogType.BROWSER);
        browser.manage().logs().get(LogType.PERFORMANCE);
    }

    private ApiClientForTests.Reply call(String method, String path, String body) {
        return node.call(method, path, body);
    }

    private String id(ApiClientForTests.Reply r) {
        assertThat(r.status()).as(r.raw()).isBetween(200, 201);
        return r.json().get("id").asText();
    }

    private String app(String uid) {
        return id(call("POST", "/v1/applications", "{\"name\":\"Customer " + uid + "\",\"uid\":\"" + uid + "\"}"));
    }

    private String endpoint(String app, String path) {
        return id(call(
                "POST",
                "/v1/endpoints",
                "{\"url\":\"" + receiver.url(path) + "\",\"application\":\"" + app + "\",\"description\":\"" + path
                        + "\"}"));
    }

    private JsonNode link(String app, String body) {
        var r = call("POST", "/v1/applications/" + app + "/portal-access", body);
        assertThat(r.status()).as(r.raw()).isEqualTo(201);
        return r.json();
    }

    /** Opens {@code url} and waits for the portal to show its endpoints. */
    private void openPortal(String url) {
        browser.get(url);
        wait.until(ExpectedConditions.visibilityOfElementLocated(By.id("app")));
        wait.until(
                d -> !d.findElements(By.cssSelector("#endpoint-list .endpoint")).isEmpty()
                        || d.findElement(By.id("no-endpoints")).isDisplayed());
    }

    private Object js(String script, Object... args) {
        return ((JavascriptExecutor) browser).executeScript(script, args);
    }

    /** A request made by hand from the page, with the session the page holds: {status, code}. */
    @SuppressWarnings("unchecked")
    private List<Object> byHand(String method, String path, String body) {
        return (List<Object>) ((JavascriptExecutor) browser)
                .executeAsyncScript(
                        "const done = arguments[arguments.length - 1];"
                                + "fetch(arguments[1], {method: arguments[0], headers: {Authorization: 'Bearer ' +"
                                + " sessionStorage.getItem('idem.portal.session'), 'Content-Type': 'application/json'},"
                                + " body: arguments[2]}).then(r => r.json().then(j => done([r.status, j.error ?"
                                + " j.error.code : null])));",
                        method,
                        path,
                        body);
    }

    private void screenshot(String name) throws Exception {
        Files.write(SCREENSHOTS.resolve(name + ".png"), ((TakesScreenshot) browser).getScreenshotAs(OutputType.BYTES));
    }

    private void assertNoPolicyViolation() {
        List<String> violations = browser.manage().logs().get(LogType.BROWSER).getAll().stream()
                .map(LogEntry::getMessage)
                .filter(m -> m.contains("Content Security Policy") || m.contains("Refused to"))
                .toList();
        assertThat(violations).as("policy violations in the console").isEmpty();
    }

    private List<String> endpointIds() {
        return cardIds("#endpoint-list .endpoint");
    }

    /** The data-id of each card {@code selector} finds, top to bottom. */
    private List<String> cardIds(String selector) {
        return browser.findElements(By.cssSelector(selector)).stream()
                .map(e -> e.getAttribute("data-id"))
                .toList();
    }

    @Test
    void aLinksSessionSeesOnlyItsOwnEndpointsAndTheApiAnswers404ForAnothers() throws Exception {
        String mine = app("browser_mine");
        String theirs = app("browser_theirs");
        String myEndpoint = endpoint(mine, "/mine");
        String theirEndpoint = endpoint(theirs, "/theirs");
        call(
                "POST",
                "/v1/event-types",
                "{\"name\":\"invoice.paid\",\"description\":\"An invoice was paid\","
                        + "\"example\":{\"data\":{\"amount\":1500}}}");
        openPortal(link(mine, "{\"capabilities\":[\"view\",\"manage_endpoints\",\"view_secrets\",\"rotate_secrets\"]}")
                .get("url")
                .asText());
        assertThat(endpointIds()).containsExactly(myEndpoint);
        assertThat(browser.getPageSource()).doesNotContain(theirEndpoint).doesNotContain("/theirs");
        screenshot("endpoints");
        assertThat(byHand("GET", "/v1/endpoints/" + theirEndpoint, null)).containsExactly(404L, "resource_missing");
        assertThat(byHand("PATCH", "/v1/endpoints/" + theirEndpoint, "{\"disabled\":true}"))
                .containsExactly(404L, "resource_missing");
        assertThat(byHand("GET", "/v1/endpoints/" + myEndpoint, null).get(0)).isEqualTo(200L);

        browser.findElement(By.cssSelector(".endpoint .secret-reveal")).click();
        wait.until(d ->
                d.findElement(By.cssSelector(".endpoint .secret")).getText().contains("whsec_"));
        browser.findElement(By.id("nav-event-types")).click();
        wait.until(ExpectedConditions.visibilityOfElementLocated(By.cssSelector(".event-type")));
        assertThat(browser.findElement(By.id("type-list")).getText()).contains("invoice.paid", "An invoice was paid");
        screenshot("event-types");
        assertNoPolicyViolation();
    }

    @Test
    void aReadOnlyLinkShowsNoEditControlAndTheApiRefusesAnEditByHand() throws Exception {
        String app = app("browser_readonly");
        String ep = endpoint(app, "/readonly");
        openPortal(link(app, "{\"capabilities\":[\"view\"]}").get("url").asText());
        assertThat(endpointIds()).containsExactly(ep);
        for (String control :
                List.of("#add-endpoint", ".edit", ".toggle", ".delete", ".secret-reveal", ".secret-rotate"))
            assertThat(browser.findElements(By.cssSelector(control)).stream().filter(e -> e.isDisplayed()))
                    .as(control)
                    .isEmpty();
        screenshot("read-only");
        assertThat(byHand("PATCH", "/v1/endpoints/" + ep, "{\"disabled\":true}"))
                .containsExactly(403L, "portal_capability_missing");
        assertThat(call("GET", "/v1/endpoints/" + ep, null)
                        .json()
                        .get("disabled")
                        .asBoolean())
                .isFalse();
        assertNoPolicyViolation();
    }

    @Test
    void anEndpointIsAddedEditedAndDisabledAndTheApis400StandsNextToItsField() throws Exception {
        String app = app("browser_manage");
        call("POST", "/v1/event-types", "{\"name\":\"order.shipped\",\"example\":{\"data\":{\"weight\":3}}}");
        openPortal(link(app, "{}").get("url").asText());
        assertThat(browser.findElement(By.id("no-endpoints")).isDisplayed()).isTrue();
        browser.findElement(By.id("add-endpoint")).click();
        browser.findElement(By.id("ep-url")).sendKeys("ftp://example.com/hook");
        browser.findElement(By.id("ep-save")).click();
        String apiSays = call(
                        "POST", "/v1/endpoints", "{\"url\":\"ftp://example.com/hook\",\"application\":\"" + app + "\"}")
                .json()
                .at("/error/message")
                .asText();
        wait.until(d -> !d.findElement(By.id("err-url")).getText().isEmpty());
        assertThat(browser.findElement(By.id("err-url")).getText()).isEqualTo(apiSays);
        assertThat(browser.findElement(By.id("ep-url")).getAttribute("aria-invalid"))
                .isEqualTo("true");
        screenshot("add-refused");
        assertThat(call("GET", "/v1/endpoints?application=" + app, null).json().get("data"))
                .isEmpty();

        browser.findElement(By.id("ep-url")).clear();
        browser.findElement(By.id("ep-url")).sendKeys(receiver.url("/added"));
        browser.findElement(By.id("type-order.shipped")).click();
        browser.findElement(By.id("ep-filter")).sendKeys("{\"data.weight\": {\"$gte\": 2}}");
        browser.findElement(By.id("filter-try")).click();
        wait.until(d -> d.findElement(By.id("filter-result")).getText().contains("matches"));
        screenshot("filter-tried");
        browser.findElement(By.id("ep-save")).click();
        wait.until(d -> endpointIds().size() == 1);
        JsonNode added =
                call("GET", "/v1/endpoints?application=" + app, null).json().at("/data/0");
        assertThat(added.get("url").asText()).isEqualTo(receiver.url("/added"));
        assertThat(added.get("event_types").toString()).isEqualTo("[\"order.shipped\"]");
        assertThat(added.at("/filter/data.weight/$gte").asInt()).isEqualTo(2);

        browser.findElement(By.cssSelector(".endpoint .toggle")).click();
        wait.until(d ->
                d.findElement(By.cssSelector(".endpoint .toggle")).getText().equals("Enable"));
        assertThat(call("GET", "/v1/endpoints/" + added.get("id").asText(), null)
                        .json()
                        .get("disabled")
                        .asBoolean())
                .isTrue();
        var audit = call("GET", "/v1/audit-log?application=" + app, null).json().get("data");
        assertThat(audit.findValuesAsText("action")).containsExactly("endpoint.update", "endpoint.create");
        assertNoPolicyViolation();
    }

    @Test
    void revokingTheLinkEndsASessionAlreadyOpen() throws Exception {
        String app = app("browser_revoke");
        endpoint(app, "/revoke");
        openPortal(link(app, "{\"session\":\"ticket-7\"}").get("url").asText());
        call("DELETE", "/v1/applications/" + app + "/portal-access?session=ticket-7", null);
        browser.findElement(By.id("nav-endpoints")).click();
        wait.until(ExpectedConditions.visibilityOfElementLocated(By.id("ended")));
        assertThat(browser.findElement(By.id("ended-title")).getText()).isEqualTo("This portal link has been revoked");
        assertThat(browser.findElement(By.id("app")).isDisplayed()).isFalse();
        screenshot("revoked");
        // reopening the page does not bring it back
        browser.navigate().refresh();
        wait.until(ExpectedConditions.visibilityOfElementLocated(By.id("ended")));
        assertNoPolicyViolation();
    }

    @Test
    void theLinksTokenIsInNoRequestUrlRefererOrNodeLog() throws Exception {
        String app = app("browser_token");
        endpoint(app, "/token");
        JsonNode link = link(app, "{}");
        String token = link.get("token").asText();
        openPortal(link.get("url").asText());
        assertThat(browser.getCurrentUrl()).doesNotContain(token).doesNotContain("#token");
        assertThat((String) js("return document.referrer")).doesNotContain(token);
        List<String> network = browser.manage().logs().get(LogType.PERFORMANCE).getAll().stream()
                .map(LogEntry::getMessage)
                .filter(m -> m.contains("\"Network.requestWillBeSent\""))
                .toList();
        assertThat(network).as("the page's requests were logged").isNotEmpty();
        for (String event : network) {
            JsonNode request = ApiClientForTests.JSON.readTree(event).at("/message/params/request");
            assertThat(request.path("url").asText("")).doesNotContain(token);
            assertThat(request.at("/headers/Referer").asText("")).doesNotContain(token);
        }
        assertThat(nodeLog.list.stream().map(ILoggingEvent::getFormattedMessage))
                .noneMatch(m -> m.contains(token));
        assertNoPolicyViolation();
    }

    @Test
    void aSiteTheProjectDidNotNameCannotEmbedThePortal() throws Exception {
        String app = app("browser_embed");
        endpoint(app, "/embed");
        String shop = "http://127.0.0.1:" + embedder.getAddress().getPort();
        String page = shop + "/?link=";
        browser.get(page + java.net.URLEncoder.encode(link(app, "{}").get("url").asText(), StandardCharsets.UTF_8));
        wait.until(d -> d.manage().logs().get(LogType.BROWSER).getAll().stream()
                .anyMatch(e -> e.getMessage().contains("frame-ancestors")));
        browser.switchTo().frame("portal");
        assertThat(browser.findElements(By.cssSelector("#app .endpoint"))).isEmpty();
        browser.switchTo().defaultContent();
        screenshot("embedding-refused");

        var settings = call(
                "PATCH",
                "/v1/settings",
                "{\"portal\":{\"frame_ancestors\":[\"" + shop + "\"],"
                        + "\"display_name\":\"Acme Webhooks\",\"primary_color\":\"#0a7d32\"}}");
        assertThat(settings.status()).as(settings.raw()).isEqualTo(200);
        browser.get(page + java.net.URLEncoder.encode(link(app, "{}").get("url").asText(), StandardCharsets.UTF_8));
        browser.switchTo().frame("portal");
        wait.until(ExpectedConditions.visibilityOfElementLocated(By.cssSelector("#app .endpoint")));
        assertThat(browser.findElement(By.id("brand-name")).getText()).isEqualTo("Acme Webhooks");
        browser.switchTo().defaultContent();
        screenshot("embedded");
        assertNoPolicyViolation();
        call(
                "PATCH",
                "/v1/settings",
                "{\"portal\":{\"frame_ancestors\":[],\"display_name\":null,\"primary_color\":null}}");
    }

    /** Sends a message to {@code app} through the API: its id. */
    private String message(String app, String eventType) {
        return id(call(
                "POST",
                "/v1/messages",
                "{\"event_type\":\"" + eventType + "\",\"application\":\"" + app + "\",\"payload\":{\"parcel\":7}}"));
    }

    private List<LoopbackReceiver.Received> at(String path) {
        return receiver.requests.stream().filter(r -> r.path().equals(path)).toList();
    }

    /** Opens the messages view and waits for {@code msg}'s card to show its delivery as {@code status}. */
    private void messagesShow(String msg, String status) {
        browser.findElement(By.id("nav-messages")).click();
        wait.until(d -> {
            var badges = d.findElements(By.cssSelector(".message[data-id='" + msg + "'] .delivery .badge"));
            if (!badges.isEmpty() && badges.get(0).getText().equals(status)) return true;
            d.findElement(By.id("search-go")).click();
            return false;
        });
    }

    @Test
    void anEndpointAddedInThePortalReceivesAMessageSentThroughTheApiAndItsAttemptsShow() throws Exception {
        String app = app("browser_flow");
        call("POST", "/v1/event-types", "{\"name\":\"parcel.sent\",\"example\":{\"parcel\":1}}");
        openPortal(link(app, "{}").get("url").asText());
        browser.findElement(By.id("add-endpoint")).click();
        browser.findElement(By.id("ep-url")).sendKeys(receiver.url("/flow-added"));
        browser.findElement(By.id("ep-save")).click();
        wait.until(d -> endpointIds().size() == 1);

        String msg = message(app, "parcel.sent");
        wait.until(d -> !at("/flow-added").isEmpty());
        assertThat(at("/flow-added").get(0).header("webhook-id")).isEqualTo(msg);
        messagesShow(msg, "succeeded");
        // the default link grants no test events
        assertThat(browser.findElement(By.id("test-form")).isDisplayed()).isFalse();
        browser.findElement(By.cssSelector(".message[data-id='" + msg + "'] .show-attempts"))
                .click();
        wait.until(d -> d.findElement(By.cssSelector(".message[data-id='" + msg + "'] .attempt"))
                .getText()
                .contains("HTTP 200"));
        assertThat(browser.findElement(By.cssSelector(".message[data-id='" + msg + "'] .request"))
                        .getText())
                .contains("POST " + receiver.url("/flow-added"), "webhook-id: " + msg, "{\"parcel\":7}");
        screenshot("messages");
        // the endpoint's health, from the API, on its card
        browser.findElement(By.id("nav-endpoints")).click();
        wait.until(d -> d.findElement(By.cssSelector(".endpoint .health"))
                .getText()
                .contains("success rate 100% of 1 attempts"));
        assertNoPolicyViolation();
    }

    @Test
    void aDeliveryIsReplayedAndATestEventSentFromThePortal() throws Exception {
        String app = app("browser_replay");
        call("POST", "/v1/event-types", "{\"name\":\"parcel.lost\",\"example\":{\"parcel\":2}}");
        String ep = endpoint(app, "/replayed");
        String msg = message(app, "parcel.lost");
        wait.until(d -> at("/replayed").size() == 1);

        openPortal(link(app, "{\"capabilities\":[\"view\"]}").get("url").asText());
        wait.until(d -> endpointIds().size() == 1);
        assertThat(browser.findElements(By.cssSelector(".replay-since"))).isEmpty();
        messagesShow(msg, "succeeded");
        assertThat(browser.findElements(By.cssSelector(".replay"))).isEmpty();
        assertThat(browser.findElement(By.id("test-form")).isDisplayed()).isFalse();

        freshTab();
        openPortal(link(app, "{\"capabilities\":[\"view\",\"replay\",\"send_test\"],\"session\":\"support\"}")
                .get("url")
                .asText());
        messagesShow(msg, "succeeded");
        browser.findElement(By.cssSelector(".message[data-id='" + msg + "'] .replay"))
                .click();
        wait.until(d -> d.findElement(By.id("notice")).getText().contains("sent again"));
        wait.until(d -> at("/replayed").size() == 2);
        assertThat(at("/replayed").get(1).header("webhook-id")).isEqualTo(msg);
        screenshot("replayed");

        new org.openqa.selenium.support.ui.Select(browser.findElement(By.id("test-endpoint"))).selectByValue(ep);
        new org.openqa.selenium.support.ui.Select(browser.findElement(By.id("test-type"))).selectByValue("parcel.lost");
        browser.findElement(By.id("test-send")).click();
        wait.until(d -> at("/replayed").size() == 3);
        LoopbackReceiver.Received test = at("/replayed").get(2);
        assertThat(test.header("idem-test")).isEqualTo("true");
        assertThat(new String(test.body(), StandardCharsets.UTF_8)).isEqualTo("{\"parcel\":2}");
        wait.until(d -> d.findElement(By.id("notice")).getText().contains("Test event"));
        screenshot("test-event-sent");

        // the message's delivery fails for good; "Replay failed deliveries since…" on its endpoint sends it again
        String delivery = call("GET", "/v1/messages/" + msg, null)
                .json()
                .at("/endpoint_deliveries/0/id")
                .asText();
        wait.until(d -> {
            JsonNode now = call("GET", "/v1/deliveries/" + delivery, null).json();
            return now.get("attempt_count").asInt() == 2
                    && now.get("status").asText().equals("succeeded");
        });
        new dev.idem.server.contract.StoreRows(dir)
                .markDead(delivery, java.time.Instant.now().minusSeconds(60));
        // the view draws its cards anew: click in a card drawn after the one already there
        js("document.querySelectorAll('#endpoint-list .endpoint').forEach(e => e.dataset.old = '1')");
        browser.findElement(By.id("nav-endpoints")).click();
        wait.until(d -> d.findElement(
                        By.cssSelector(".endpoint[data-id='" + ep + "']:not([data-old]) .replay-since-go")))
                .click();
        wait.until(d -> d.findElement(By.id("notice")).getText().contains("Replayed 1 failed delivery"));
        wait.until(d -> at("/replayed").size() == 4);
        assertThat(at("/replayed").get(3).header("webhook-id")).isEqualTo(msg);
        assertThat(at("/replayed").get(3).header("Idem-Attempt")).isEqualTo("3");
        screenshot("replayed-since");
        var audit = call("GET", "/v1/audit-log?application=" + app, null).json().get("data");
        assertThat(audit.findValuesAsText("action"))
                .containsExactly("deliveries.replay", "endpoint.send_test", "delivery.replay");
        assertNoPolicyViolation();
    }

    /** The ids of the message cards the messages view shows, top to bottom. */
    private List<String> messageCards() {
        return cardIds("#message-list .message");
    }

    @Test
    void aStatusSearchFindsAMatchingDeliveryThatWasNotOnTheFirstPage() throws Exception {
        String app = app("browser_search");
        // the search's event type choices are the catalogue's (either may exist already: a 409 then)
        call("POST", "/v1/event-types", "{\"name\":\"parcel.sent\"}");
        call("POST", "/v1/event-types", "{\"name\":\"parcel.late\"}");
        endpoint(app, "/searched");
        List<String> sent = new java.util.ArrayList<>();
        for (int i = 0; i < 25; i++) sent.add(message(app, i % 2 == 0 ? "parcel.sent" : "parcel.late"));
        wait.until(d -> at("/searched").size() == 25);
        String oldest = sent.get(0);
        String delivery = call("GET", "/v1/messages/" + oldest, null)
                .json()
                .at("/endpoint_deliveries/0/id")
                .asText();
        wait.until(d -> call("GET", "/v1/deliveries/" + delivery, null)
                .json()
                .get("status")
                .asText()
                .equals("succeeded"));
        new dev.idem.server.contract.StoreRows(dir).markDead(delivery, java.time.Instant.now());

        openPortal(link(app, "{}").get("url").asText());
        browser.findElement(By.id("nav-messages")).click();
        wait.until(d -> messageCards().size() == 20);
        assertThat(messageCards()).as("the first page, newest first").doesNotContain(oldest);
        assertThat(browser.findElement(By.id("more-messages")).isDisplayed()).isTrue();

        new org.openqa.selenium.support.ui.Select(browser.findElement(By.id("search-status")))
                .selectByVisibleText("Failing (retrying or dead)");
        browser.findElement(By.id("search-go")).click();
        wait.until(d -> messageCards().equals(List.of(oldest)));
        assertThat(browser.findElement(By.cssSelector(".message[data-id='" + oldest + "'] .badge"))
                        .getText())
                .isEqualTo("dead");
        assertThat(browser.findElement(By.id("more-messages")).isDisplayed()).isFalse();
        screenshot("messages-search-failing");

        // with the event type too: the dead one is a parcel.sent, so parcel.late finds nothing
        new org.openqa.selenium.support.ui.Select(browser.findElement(By.id("search-type")))
                .selectByValue("parcel.late");
        browser.findElement(By.id("search-go")).click();
        wait.until(d -> d.findElement(By.id("no-messages")).isDisplayed());
        assertThat(messageCards()).isEmpty();

        // every succeeded one, page after page: 24, none dead
        new org.openqa.selenium.support.ui.Select(browser.findElement(By.id("search-type"))).selectByValue("");
        new org.openqa.selenium.support.ui.Select(browser.findElement(By.id("search-status")))
                .selectByValue("succeeded");
        browser.findElement(By.id("search-go")).click();
        wait.until(d -> messageCards().size() == 20);
        browser.findElement(By.id("more-messages")).click();
        wait.until(d -> messageCards().size() == 24);
        List<String> newestFirst = new java.util.ArrayList<>(sent.subList(1, 25));
        java.util.Collections.reverse(newestFirst);
        assertThat(messageCards()).containsExactlyElementsOf(newestFirst);
        assertNoPolicyViolation();
    }

    private List<String> axeViolations() throws Exception {
        return Chromium.axeViolations(browser);
    }

    /** Tabbing from the top of the page reaches every control drawn (buttons, fields, links, disclosures). */
    @SuppressWarnings("unchecked")
    private void assertEveryControlIsReachedByTab() {
        List<Object> controls = (List<Object>) js("return [...document.querySelectorAll("
                + "'button, input, select, textarea, a[href], summary')].filter(e => e.offsetParent !== null)");
        js("document.activeElement && document.activeElement.blur(); window.scrollTo(0, 0);");
        java.util.Set<Object> reached = new java.util.HashSet<>();
        // a date and time field takes several presses (one per part)
        for (int i = 0; i < controls.size() * 4 + 10; i++) {
            new org.openqa.selenium.interactions.Actions(browser)
                    .sendKeys(org.openqa.selenium.Keys.TAB)
                    .perform();
            reached.add(js("return document.activeElement"));
        }
        assertThat(controls).as("controls drawn").hasSizeGreaterThan(10);
        assertThat(reached).containsAll(controls);
    }

    @Test
    void axeFindsNoViolationOnAnyViewWithEveryControlDrawn() throws Exception {
        String app = app("browser_axe");
        call(
                "POST",
                "/v1/event-types",
                "{\"name\":\"parcel.found\",\"description\":\"Found\",\"example\":{\"parcel\":3}}");
        endpoint(app, "/axe");
        String msg = message(app, "parcel.found");
        openPortal(link(
                        app,
                        "{\"capabilities\":[\"view\",\"manage_endpoints\",\"view_secrets\",\"rotate_secrets\","
                                + "\"replay\",\"send_test\"]}")
                .get("url")
                .asText());
        assertThat(axeViolations()).as("endpoints").isEmpty();
        browser.findElement(By.id("add-endpoint")).click();
        assertThat(axeViolations()).as("the endpoint form").isEmpty();
        messagesShow(msg, "succeeded");
        browser.findElement(By.cssSelector(".message[data-id='" + msg + "'] .show-attempts"))
                .click();
        wait.until(ExpectedConditions.visibilityOfElementLocated(By.cssSelector(".attempt")));
        assertThat(axeViolations()).as("messages").isEmpty();
        assertEveryControlIsReachedByTab();
        browser.findElement(By.id("nav-event-types")).click();
        wait.until(ExpectedConditions.visibilityOfElementLocated(By.cssSelector(".event-type")));
        assertThat(axeViolations()).as("event types").isEmpty();
        // the check finds what it looks for: an input without a label, added by hand, is a violation
        js("const i = document.createElement('input'); i.id = 'unlabelled'; document.querySelector('main').append(i);");
        assertThat(axeViolations()).anyMatch(v -> v.startsWith("label:") && v.contains("#unlabelled"));
    }
}
