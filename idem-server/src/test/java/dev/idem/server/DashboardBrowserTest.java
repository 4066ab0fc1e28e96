package dev.idem.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.openqa.selenium.By;
import org.openqa.selenium.JavascriptExecutor;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.logging.LogEntry;
import org.openqa.selenium.logging.LogType;
import org.openqa.selenium.support.ui.ExpectedConditions;

/**
 * The dashboard (docs/operations.md, "The dashboard") in a real headless browser ({@link Chromium}: Debian's
 * chromium, nothing downloaded), against a real node on SQLite with real receivers.
 * The browser runs in the {@value #VIEWER_ZONE} zone, so local times differ from UTC. Each page is saved as a
 * PNG under {@code target/dashboard-screenshots/}.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class DashboardBrowserTest extends DashboardBrowserFixture {
    static final String HOSTILE = "<img src=x onerror=\"window.__pwned=1\">";
    static final String FAR = "2035-01-01T00:00:00.000Z";
    /** {@link #FAR} as a viewer in {@link #VIEWER_ZONE} reads it. */
    static final String FAR_IN_TOKYO = "2035-01-01 09:00:00";

    String farId;
    String deliveredId;
    String deadScheduleId;
    String deadDeliveryId;
    final List<String> selectionDead = new ArrayList<>();
    final List<String> bulkDead = new ArrayList<>();
    String bulkOtherDead;

    @BeforeAll
    void makeSchedulesAndTheirDeliveries() {
        failing.answer.set(HOSTILE);

        farId = create("{\"endpoint\":\"" + ok.url("/far") + "\",\"fire_at\":\"" + FAR + "\",\"metadata\":{\"note\":\""
                + HOSTILE.replace("\"", "\\\"") + "\"}}");
        deliveredId = create("{\"endpoint\":\"" + ok.url("/now")
                + "\",\"event_type\":\"invoice.paid\",\"payload\":{\"invoice\":\"inv_1\"}}");
        deadScheduleId = create("{\"endpoint\":\"" + failing.url("/fail") + "\",\"retry\":{\"max_attempts\":1}}");
        List<String> selection = new ArrayList<>();
        for (int i = 0; i < 3; i++) selection.add(create(dying("/selection")));
        List<String> bulk = new ArrayList<>();
        for (int i = 0; i < 2; i++) bulk.add(create(dying("/bulk-a")));
        String other = create(dying("/bulk-b"));
        awaitDelivery(deliveredId, "succeeded");
        deadDeliveryId = awaitDelivery(deadScheduleId, "dead");
        for (String s : selection) selectionDead.add(awaitDelivery(s, "dead"));
        for (String s : bulk) bulkDead.add(awaitDelivery(s, "dead"));
        bulkOtherDead = awaitDelivery(other, "dead");
    }

    private String dying(String path) {
        return "{\"endpoint\":\"" + failing.url(path) + "\",\"retry\":{\"max_attempts\":1}}";
    }

    private JsonNode apiGet(String path) {
        var r = node.call("GET", path, null);
        assertThat(r.status()).as(r.raw()).isEqualTo(200);
        return r.json();
    }

    /** A fresh page with nothing remembered, then the key typed into the form. */
    private void openWith(String key) {
        browser.get(base);
        js("sessionStorage.clear()");
        browser.navigate().refresh();
        WebElement input = wait.until(ExpectedConditions.visibilityOfElementLocated(By.id("api-key")));
        input.sendKeys(key);
        browser.findElement(By.id("key-submit")).click();
    }

    private void openDashboard() {
        openWith(TestNode.TEST_KEY);
        wait.until(ExpectedConditions.visibilityOfElementLocated(By.id("app")));
    }

    /** A deep link typed into the address bar of a tab that already holds the key. */
    private void visit(String fragment) {
        browser.get(base + fragment);
        wait.until(ExpectedConditions.visibilityOfElementLocated(By.id("app")));
    }

    private WebElement scheduleRow(String id) {
        return wait.until(
                ExpectedConditions.visibilityOfElementLocated(By.cssSelector("#schedules tr[data-id='" + id + "']")));
    }

    private void openSchedule(String id) {
        scheduleRow(id).findElement(By.cssSelector("a.schedule-link")).click();
        wait.until(ExpectedConditions.textToBe(By.id("schedule-id"), id));
    }

    /** Opens the attempts of the schedule's first delivery; returns its attempt rows. */
    private List<WebElement> attemptsOfFirstDelivery() {
        WebElement row =
                wait.until(ExpectedConditions.visibilityOfElementLocated(By.cssSelector("#deliveries tr.delivery")));
        row.findElement(By.cssSelector("button.show-attempts")).click();
        String id = row.getAttribute("data-id");
        return wait.until(ExpectedConditions.visibilityOfAllElementsLocatedBy(
                By.cssSelector("tr.attempts[data-delivery='" + id + "'] tr.attempt")));
    }

    private static String enc(String s) {
        return URLEncoder.encode(s, StandardCharsets.UTF_8);
    }

    @Test
    void schedulesAreListedWithTheirStatusAndNextFireTimeRelativeInTheViewersZoneWithUtcOnHover() throws Exception {
        openDashboard();
        WebElement far = scheduleRow(farId);
        String farStatus = apiGet("/v1/schedules/" + farId).get("status").asText();
        assertThat(far.findElement(By.cssSelector(".schedule-status .status")).getText())
                .isEqualTo(farStatus);
        WebElement next = far.findElement(By.cssSelector(".next-fire time"));
        assertThat(next.getAttribute("title")).isEqualTo(FAR + " (UTC)");
        assertThat(next.getText()).matches("in \\d+ years · " + FAR_IN_TOKYO);
        assertThat(browser.findElement(By.id("zone")).getText()).isEqualTo("times in " + VIEWER_ZONE);
        WebElement fired = scheduleRow(deliveredId);
        assertThat(fired.findElement(By.cssSelector(".schedule-status .status")).getText())
                .isEqualTo("completed");
        assertThat(fired.findElement(By.cssSelector(".next-fire")).getText()).isEqualTo("—");
        assertThat(fired.findElement(By.cssSelector(".event-type")).getText()).isEqualTo("invoice.paid");
        assertThat(browser.getCurrentUrl()).doesNotContain(TestNode.TEST_KEY);
        screenshot("schedules");
    }

    @Test
    void schedulesFilterByStatusEndpointAndEventTypeAndTheFilterIsInTheLink() throws Exception {
        String reportA = create("{\"endpoint\":\"" + ok.url("/reports/a")
                + "\",\"event_type\":\"report.weekly\",\"fire_at\":\"" + FAR + "\"}");
        String reportB = create("{\"endpoint\":\"" + ok.url("/reports/b")
                + "\",\"event_type\":\"report.daily\",\"fire_at\":\"" + FAR + "\"}");
        String pausedReport = create("{\"endpoint\":\"" + ok.url("/reports/c")
                + "\",\"event_type\":\"report.weekly\",\"fire_at\":\"" + FAR + "\"}");
        assertThat(node.call("POST", "/v1/schedules/" + pausedReport + "/pause", null)
                        .status())
                .isEqualTo(200);
        openDashboard();
        scheduleRow(farId);

        browser.findElement(By.id("schedule-endpoint")).sendKeys("/reports/");
        browser.findElement(By.id("schedules-filter")).click();
        wait.until(d -> shownSchedules().size() == 3);
        assertThat(shownSchedules()).containsExactlyInAnyOrder(reportA, reportB, pausedReport);

        browser.findElement(By.id("schedule-event-type")).sendKeys("report.weekly");
        browser.findElement(By.id("schedules-filter")).click();
        wait.until(d -> shownSchedules().size() == 2);
        assertThat(shownSchedules()).containsExactlyInAnyOrder(reportA, pausedReport);

        new org.openqa.selenium.support.ui.Select(browser.findElement(By.id("schedule-status")))
                .selectByVisibleText("paused");
        wait.until(d -> shownSchedules().size() == 1);
        assertThat(shownSchedules()).containsExactly(pausedReport);
        String link = browser.getCurrentUrl();
        assertThat(link)
                .contains("#/schedules?")
                .contains("status=paused")
                .contains("event_type=report.weekly")
                .contains("endpoint=");
        screenshot("schedules-filtered");

        // the same link in a new visit shows the same filtered list
        visit("#/schedules");
        wait.until(d -> shownSchedules().contains(farId));
        browser.get(link);
        wait.until(d -> shownSchedules().equals(List.of(pausedReport)));
        assertThat(browser.findElement(By.id("schedule-event-type")).getAttribute("value"))
                .isEqualTo("report.weekly");
    }

    private List<String> shownSchedules() {
        // read in one script: the table may be redrawn between two WebDriver calls
        @SuppressWarnings("unchecked")
        List<String> ids = (List<String>)
                js("return [...document.querySelectorAll('#schedules tbody tr')].map(r => r.dataset.id)");
        return ids;
    }

    @Test
    void deepLinksOpenAScheduleAndADeliveryEvenBeforeTheKeyIsGiven() {
        String deliveryId = awaitDelivery(deliveredId, "succeeded");
        // a link followed in a fresh tab: the key first, then the page the link names
        browser.get(base + "#/schedules/" + deliveredId);
        js("sessionStorage.clear()");
        browser.navigate().refresh();
        WebElement input = wait.until(ExpectedConditions.visibilityOfElementLocated(By.id("api-key")));
        input.sendKeys(TestNode.TEST_KEY);
        browser.findElement(By.id("key-submit")).click();
        wait.until(ExpectedConditions.textToBe(By.id("schedule-id"), deliveredId));

        visit("#/deliveries/" + deliveryId);
        wait.until(ExpectedConditions.textToBe(By.id("delivery-id"), deliveryId));
        assertThat(browser.findElement(By.id("schedule-view")).isDisplayed()).isFalse();
        // and from the delivery back to its schedule by its link
        browser.findElement(By.id("delivery-back")).click();
        wait.until(ExpectedConditions.textToBe(By.id("schedule-id"), deliveredId));
        assertThat(browser.getCurrentUrl()).endsWith("#/schedules/" + deliveredId);
        // a delivery link from the schedule's table
        wait.until(ExpectedConditions.elementToBeClickable(By.cssSelector("#deliveries a.delivery-link")))
                .click();
        wait.until(ExpectedConditions.textToBe(By.id("delivery-id"), deliveryId));
        assertThat(browser.getCurrentUrl()).endsWith("#/deliveries/" + deliveryId);
        // back in history goes back to the schedule
        browser.navigate().back();
        wait.until(ExpectedConditions.visibilityOfElementLocated(By.id("schedule-view")));
        assertThat(browser.findElement(By.id("schedule-id")).getText()).isEqualTo(deliveredId);
    }

    @Test
    void aSchedulesPageShowsItsDefinitionTimingRetryPolicyAndPayload() throws Exception {
        String id = create(
                "{\"endpoint\":\"" + ok.url("/digest") + "\",\"rrule\":\"FREQ=WEEKLY;BYDAY=MO;BYHOUR=9;BYMINUTE=0\","
                        + "\"timezone\":\"Europe/Paris\",\"dtstart\":\"2034-01-02T09:00:00\",\"event_type\":\"digest.weekly\","
                        + "\"payload\":{\"digest\":\"weekly\",\"n\":3},\"headers\":{\"X-Team\":\"growth\"},"
                        + "\"retry\":{\"max_attempts\":7,\"initial_backoff\":\"2s\",\"max_backoff\":\"10m\",\"max_age\":\"2h\"},\"timeout\":\"15s\"}");
        JsonNode api = apiGet("/v1/schedules/" + id);
        openDashboard();
        visit("#/schedules/" + id);
        wait.until(ExpectedConditions.textToBe(By.id("schedule-id"), id));
        assertThat(field("schedule-timing", "RRULE")).isEqualTo("FREQ=WEEKLY;BYDAY=MO;BYHOUR=9;BYMINUTE=0");
        assertThat(field("schedule-timing", "Time zone")).isEqualTo("Europe/Paris");
        assertThat(field("schedule-timing", "Start (local)")).isEqualTo("2034-01-02T09:00:00");
        WebElement next = browser.findElement(By.cssSelector("#schedule-timing dd[data-field='Next fire'] time"));
        assertThat(next.getAttribute("title")).isEqualTo(api.get("next_fire_at").asText() + " (UTC)");
        assertThat(field("schedule-retry", "Max attempts")).isEqualTo("7");
        assertThat(field("schedule-retry", "Initial backoff"))
                .isEqualTo(api.at("/retry/initial_backoff").asText());
        assertThat(field("schedule-retry", "Max backoff"))
                .isEqualTo(api.at("/retry/max_backoff").asText());
        assertThat(field("schedule-retry", "Max age"))
                .isEqualTo(api.at("/retry/max_age").asText());
        assertThat(field("schedule-retry", "Timeout"))
                .isEqualTo(api.get("timeout").asText());
        assertThat(field("schedule-payload", "Body"))
                .contains("\"digest\": \"weekly\"")
                .contains("\"n\": 3");
        assertThat(field("schedule-payload", "Headers")).isEqualTo("X-Team: growth");
        assertThat(field("schedule-payload", "Event type")).isEqualTo("digest.weekly");
        assertThat(field("schedule-state", "Status")).isEqualTo("active");
        screenshot("schedule");
    }

    @Test
    void aDeliveryPageShowsTheRequestAsSentBesideItsAttempts() throws Exception {
        String deliveryId = awaitDelivery(deliveredId, "succeeded");
        LoopbackReceiver.Received got = ok.requests.stream()
                .filter(r -> deliveryId.equals(r.header("webhook-id")))
                .findFirst()
                .orElseThrow();
        openDashboard();
        visit("#/deliveries/" + deliveryId);
        wait.until(ExpectedConditions.textToBe(By.id("delivery-id"), deliveryId));
        WebElement attempt = wait.until(
                ExpectedConditions.visibilityOfElementLocated(By.cssSelector("#delivery-attempts tr.attempt")));
        assertThat(attempt.findElement(By.cssSelector(".attempt-status")).getText())
                .isEqualTo("200");
        assertThat(browser.findElement(By.id("request-url")).getText()).isEqualTo(ok.url("/now"));
        assertThat(browser.findElement(By.id("request-method")).getText()).isEqualTo("POST");
        for (String h : List.of(
                "webhook-id",
                "webhook-timestamp",
                "webhook-signature",
                "idempotency-key",
                "idem-event-type",
                "content-type"))
            assertThat(browser.findElement(By.cssSelector("#request-headers tr[data-name='" + h + "'] td:nth-child(2)"))
                            .getText())
                    .as(h)
                    .isEqualTo(got.header(h));
        assertThat(browser.findElement(By.id("request-body")).getText())
                .isEqualTo(new String(got.body(), StandardCharsets.UTF_8));
        String secret = apiGet("/v1/signing-secret").get("secret").asText();
        assertThat(browser.getPageSource()).doesNotContain(secret).doesNotContain(secret.substring("whsec_".length()));
        screenshot("delivery");
    }

    @Test
    void hostileMetadataAndResponseBodiesAreShownAsTextAndNeverRun() {
        openDashboard();
        assertThat(scheduleRow(farId).findElement(By.cssSelector(".metadata")).getText())
                .contains(HOSTILE.replace("\"", "\\\""));
        openSchedule(deadScheduleId);
        WebElement attempt = attemptsOfFirstDelivery().get(0);
        assertThat(attempt.findElement(By.cssSelector(".attempt-status")).getText())
                .isEqualTo("500");
        assertThat(attempt.findElement(By.cssSelector(".attempt-response")).getText())
                .isEqualTo(HOSTILE);
        assertThat(js("return document.images.length")).isEqualTo(0L);
        assertThat(js("return window.__pwned === undefined")).isEqualTo(true);
    }

    @Test
    void aDeadDeliveryIsInTheDeadLetterQueueAndReplaySendsItAgainWithTheSameWebhookId() throws Exception {
        openDashboard();
        browser.findElement(By.id("tab-dlq")).click();
        WebElement row = wait.until(ExpectedConditions.visibilityOfElementLocated(
                By.cssSelector("#dlq tr[data-id='" + deadDeliveryId + "']")));
        assertThat(row.getText()).contains(deadScheduleId).contains(failing.url("/fail"));
        screenshot("dead-letter");
        int before = sentTo(deadDeliveryId);
        row.findElement(By.cssSelector("button.replay")).click();
        wait.until(ExpectedConditions.visibilityOfElementLocated(By.id("notice")));
        assertThat(browser.findElement(By.id("notice")).getText()).contains(deadDeliveryId);
        await().atMost(Duration.ofSeconds(20)).until(() -> sentTo(deadDeliveryId) > before);
        LoopbackReceiver.Received again = lastTo(deadDeliveryId);
        assertThat(Integer.parseInt(again.header("Idem-Attempt"))).isGreaterThan(1);
        // it failed again, so it is back in the queue
        awaitDelivery(deadScheduleId, "dead");
        browser.findElement(By.id("dlq-refresh")).click();
        wait.until(ExpectedConditions.visibilityOfElementLocated(
                By.cssSelector("#dlq tr[data-id='" + deadDeliveryId + "']")));
    }

    private int sentTo(String deliveryId) {
        return (int) failing.requests.stream()
                .filter(r -> deliveryId.equals(r.header("webhook-id")))
                .count();
    }

    private LoopbackReceiver.Received lastTo(String deliveryId) {
        return failing.requests.stream()
                .filter(r -> deliveryId.equals(r.header("webhook-id")))
                .reduce((a, b) -> b)
                .orElseThrow();
    }

    @Test
    void replayOfASelectionSendsExactlyTheSelectedDeliveriesAgain() throws Exception {
        openDashboard();
        visit("#/dead-letter?endpoint=" + enc(failing.url("/selection")));
        for (String id : selectionDead)
            wait.until(ExpectedConditions.visibilityOfElementLocated(By.cssSelector("#dlq tr[data-id='" + id + "']")));
        assertThat(browser.findElements(By.cssSelector("#dlq tbody tr"))).hasSize(3);
        List<String> chosen = selectionDead.subList(0, 2);
        String left = selectionDead.get(2);
        for (String id : chosen)
            browser.findElement(By.cssSelector("#dlq tr[data-id='" + id + "'] input.select"))
                    .click();
        assertThat(browser.findElement(By.id("dlq-replay-selected")).getText()).isEqualTo("Replay selected (2)");
        screenshot("dead-letter-selection");
        int leftBefore = sentTo(left);
        browser.findElement(By.id("dlq-replay-selected")).click();
        wait.until(ExpectedConditions.textToBePresentInElementLocated(By.id("notice"), "Replayed 2 of 2"));
        for (String id : chosen) await().atMost(Duration.ofSeconds(20)).until(() -> sentTo(id) == 2);
        assertThat(browser.findElements(By.cssSelector("#dlq tbody tr")).stream()
                        .map(r -> r.getAttribute("data-id"))
                        .toList())
                .containsExactly(left);
        // the unselected one stayed in the queue and was not sent again
        assertThat(sentTo(left)).isEqualTo(leftBefore).isEqualTo(1);
        assertThat(apiGet("/v1/deliveries/" + left).get("status").asText()).isEqualTo("dead");
    }

    @Test
    void replayAllMatchingTheFilterReplaysEveryMatchAndNothingElse() throws Exception {
        openDashboard();
        browser.findElement(By.id("tab-dlq")).click();
        wait.until(ExpectedConditions.visibilityOfElementLocated(
                By.cssSelector("#dlq tr[data-id='" + bulkOtherDead + "']")));
        browser.findElement(By.id("dlq-endpoint")).sendKeys(failing.url("/bulk-a"));
        browser.findElement(By.id("dlq-filter")).click();
        wait.until(d -> d.findElements(By.cssSelector("#dlq tbody tr")).size() == 2);
        assertThat(browser.findElements(By.cssSelector("#dlq tbody tr")).stream()
                        .map(r -> r.getAttribute("data-id"))
                        .toList())
                .containsExactlyInAnyOrderElementsOf(bulkDead);
        browser.findElement(By.id("dlq-replay-all")).click();
        wait.until(ExpectedConditions.visibilityOfElementLocated(By.id("dlq-confirm-yes")))
                .click();
        wait.until(ExpectedConditions.textToBePresentInElementLocated(
                By.id("notice"), "Replayed 2 dead deliveries matching the filter"));
        for (String id : bulkDead) await().atMost(Duration.ofSeconds(20)).until(() -> sentTo(id) == 2);
        assertThat(sentTo(bulkOtherDead)).isEqualTo(1);
        assertThat(apiGet("/v1/deliveries/" + bulkOtherDead).get("status").asText())
                .isEqualTo("dead");
    }

    @Test
    void pauseAndResumeChangeTheScheduleStatus() {
        openDashboard();
        By status = By.cssSelector("#schedules tr[data-id='" + farId + "'] .schedule-status .status");
        scheduleRow(farId).findElement(By.cssSelector("button.pause")).click();
        wait.until(ExpectedConditions.textToBe(status, "paused"));
        assertThat(apiGet("/v1/schedules/" + farId).get("status").asText()).isEqualTo("paused");
        scheduleRow(farId).findElement(By.cssSelector("button.resume")).click();
        wait.until(ExpectedConditions.textToBe(status, "active"));
        assertThat(apiGet("/v1/schedules/" + farId).get("status").asText()).isEqualTo("active");
    }

    @Test
    void deleteAsksOnceMoreThenDeletesTheSchedule() throws Exception {
        String id = create("{\"endpoint\":\"" + ok.url("/doomed") + "\",\"cron\":\"0 9 * * *\",\"timezone\":\"UTC\"}");
        openDashboard();
        visit("#/schedules/" + id);
        wait.until(ExpectedConditions.visibilityOfElementLocated(By.cssSelector("#schedule-actions button.delete")))
                .click();
        // nothing happens until confirmed; cancel keeps it
        browser.findElement(By.cssSelector("#schedule-actions button.cancel-delete"))
                .click();
        assertThat(apiGet("/v1/schedules/" + id).get("status").asText()).isEqualTo("active");
        browser.findElement(By.cssSelector("#schedule-actions button.delete")).click();
        browser.findElement(By.cssSelector("#schedule-actions button.confirm-delete"))
                .click();
        wait.until(ExpectedConditions.textToBePresentInElementLocated(
                By.cssSelector("#schedule-state dd[data-field='Status']"), "deleted"));
        assertThat(apiGet("/v1/schedules/" + id).get("status").asText()).isEqualTo("deleted");
        assertThat(browser.findElements(By.cssSelector("#schedule-actions button.delete")))
                .isEmpty();
    }

    @Test
    void theCreateFormPreviewsTheRuleWhileTypingNamesTheBadPartAndCreates() throws Exception {
        openDashboard();
        browser.findElement(By.id("tab-new")).click();
        wait.until(ExpectedConditions.visibilityOfElementLocated(By.id("create-form")));
        WebElement zone = browser.findElement(By.id("create-timezone"));
        assertThat(zone.getAttribute("value")).isEqualTo(VIEWER_ZONE);
        zone.clear();
        zone.sendKeys("Europe/Paris");
        WebElement rule = browser.findElement(By.id("create-when"));
        rule.sendKeys("FREQ=DAILY;BYHOUR=9;BYMINUTE=0");
        wait.until(d ->
                d.findElements(By.cssSelector("#preview-list li.occurrence")).size() == 5);
        JsonNode expected = apiGet("/v1/recurrence/preview?rrule=" + enc("FREQ=DAILY;BYHOUR=9;BYMINUTE=0")
                        + "&timezone=Europe/Paris&count=5")
                .get("occurrences");
        List<WebElement> shown = browser.findElements(By.cssSelector("#preview-list li.occurrence"));
        for (int i = 0; i < 5; i++) {
            assertThat(shown.get(i).getText())
                    .startsWith(expected.get(i).get("local").asText() + " Europe/Paris");
            assertThat(shown.get(i).findElement(By.tagName("time")).getAttribute("title"))
                    .isEqualTo(expected.get(i).get("utc").asText() + " (UTC)");
        }
        screenshot("create");

        // a bad rule: the API's own message, naming the bad part, while the list empties
        rule.clear();
        rule.sendKeys("FREQ=DAILY;BYHOUR=25");
        wait.until(ExpectedConditions.visibilityOfElementLocated(By.id("preview-error")));
        var refused = node.call(
                "GET",
                "/v1/recurrence/preview?rrule=" + enc("FREQ=DAILY;BYHOUR=25") + "&timezone=Europe/Paris&count=5",
                null);
        assertThat(refused.status()).isEqualTo(400);
        String message = refused.json().at("/error/message").asText();
        assertThat(message).contains("BYHOUR");
        wait.until(ExpectedConditions.textToBePresentInElementLocated(By.id("preview-error"), message));
        assertThat(browser.findElements(By.cssSelector("#preview-list li.occurrence")))
                .isEmpty();
        screenshot("create-bad-rule");

        // cron previews too, then the form creates the schedule and opens its page
        new org.openqa.selenium.support.ui.Select(browser.findElement(By.id("create-kind"))).selectByValue("cron");
        rule.clear();
        rule.sendKeys("30 8 * * 1-5");
        wait.until(d ->
                d.findElements(By.cssSelector("#preview-list li.occurrence")).size() == 5);
        assertThat(browser.findElement(By.cssSelector("#preview-list li.occurrence"))
                        .getText())
                .contains("08:30:00 Europe/Paris");
        browser.findElement(By.id("create-endpoint")).sendKeys(ok.url("/created"));
        browser.findElement(By.id("create-event-type")).sendKeys("standup.reminder");
        browser.findElement(By.id("create-payload")).sendKeys("{\"room\": \"blue\"}");
        browser.findElement(By.id("create-submit")).click();
        wait.until(ExpectedConditions.urlMatches("#/schedules/sch_"));
        String id = browser.getCurrentUrl().replaceAll(".*#/schedules/", "");
        wait.until(ExpectedConditions.textToBe(By.id("schedule-id"), id));
        assertThat(browser.findElement(By.id("notice")).getText()).isEqualTo("Schedule " + id + " created.");
        JsonNode created = apiGet("/v1/schedules/" + id);
        assertThat(created.get("cron").asText()).isEqualTo("30 8 * * 1-5");
        assertThat(created.get("timezone").asText()).isEqualTo("Europe/Paris");
        assertThat(created.get("event_type").asText()).isEqualTo("standup.reminder");
        assertThat(created.get("payload").toString()).isEqualTo("{\"room\":\"blue\"}");
    }

    @Test
    void theCountersShowNumbersThatMoveAfterDeliveriesAndAChartOfTheLastMinutes() throws Exception {
        openDashboard();
        wait.until(d -> d.findElement(By.id("counter-finished")).getText().matches("\\d+"));
        int before =
                Integer.parseInt(browser.findElement(By.id("counter-finished")).getText());
        assertThat(browser.findElement(By.id("counter-dead")).getText()).matches("\\d+");
        assertThat(browser.findElement(By.id("counter-lag")).getText()).matches("[\\d.]+ (ms|s|min)");
        assertThat(browser.findElement(By.id("counter-queued")).getText()).matches("\\d+");
        assertThat(browser.findElement(By.id("counter-in-flight")).getText()).matches("\\d+");
        for (int i = 0; i < 3; i++) create("{\"endpoint\":\"" + ok.url("/count") + "\"}");
        // refreshed by the page's own timer, nothing clicked
        wait.until(d -> {
            int now = Integer.parseInt(d.findElement(By.id("counter-finished")).getText());
            return now != before && now >= 3;
        });
        assertThat(Double.parseDouble(browser.findElement(By.id("counter-rate")).getText()))
                .isPositive();
        // the chart: one point per refresh, drawn by the page's own script as SVG
        wait.until(d -> Integer.parseInt(d.findElement(By.id("chart")).getAttribute("data-samples")) >= 3);
        String points = browser.findElement(By.cssSelector("#chart polyline.series-rate"))
                .getAttribute("points");
        String[] pairs = points.trim().split(" ");
        assertThat(pairs.length).isGreaterThanOrEqualTo(3);
        double lastY = Double.parseDouble(pairs[pairs.length - 1].split(",")[1]);
        // the latest rate is positive, so its point is above the baseline (SVG y grows downwards)
        assertThat(lastY).isLessThan(78.0);
        assertThat(Double.parseDouble(browser.findElement(By.id("chart-peak")).getText()))
                .isPositive();
        screenshot("counters");
    }

    @Test
    void theFaviconIsServedAsSvgAndThePolicyStaysStrictWithNoViolationOnAnyPage() throws Exception {
        var icon = node.api.call("GET", "/favicon.svg", null, null);
        assertThat(icon.status()).isEqualTo(200);
        assertThat(icon.header("Content-Type")).startsWith("image/svg+xml");
        assertThat(icon.raw()).startsWith("<svg");
        var page = node.api.call("GET", "/", null, null);
        assertThat(page.header("Content-Security-Policy"))
                .isEqualTo("default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; "
                        + "img-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'");
        assertThat(page.raw()).contains("<link rel=\"icon\" href=\"/favicon.svg\" type=\"image/svg+xml\">");

        browser.manage().logs().get(LogType.BROWSER); // drop what earlier tests left
        openDashboard();
        // the page itself fetches its icon under its own policy
        Object fetched = ((JavascriptExecutor) browser)
                .executeAsyncScript(
                        "const done = arguments[arguments.length - 1];"
                                + "fetch(document.querySelector('link[rel=icon]').href).then(r => done(r.status + ' ' + r.headers.get('content-type')), e => done(String(e)));");
        assertThat((String) fetched).startsWith("200 image/svg+xml");
        String deliveryId = awaitDelivery(deliveredId, "succeeded");
        for (String fragment : List.of(
                "#/schedules", "#/schedules/" + deliveredId, "#/deliveries/" + deliveryId, "#/dead-letter", "#/new")) {
            visit(fragment);
            wait.until(
                    d -> !d.findElements(By.cssSelector(".view:not([hidden])")).isEmpty());
        }
        browser.findElement(By.id("create-when")).sendKeys("FREQ=HOURLY");
        wait.until(d ->
                d.findElements(By.cssSelector("#preview-list li.occurrence")).size() == 5);
        List<String> violations = browser.manage().logs().get(LogType.BROWSER).getAll().stream()
                .map(LogEntry::getMessage)
                .filter(m -> m.contains("Content Security Policy") || m.contains("Refused to"))
                .toList();
        assertThat(violations).isEmpty();
    }

    @Test
    void sourcesAreListedWithTheirIngestUrlAndEachShowsItsRecentEvents() throws Exception {
        var created = node.call(
                "POST",
                "/v1/sources",
                "{\"name\":\"github-prod\",\"verify\":{\"scheme\":\"github\",\"secret\":\"gh-secret\"},"
                        + "\"destination\":\"" + ok.url("/github") + "\"}");
        assertThat(created.status()).as(created.raw()).isEqualTo(201);
        String sourceId = created.json().get("id").asText();
        String ingestUrl = created.json().get("ingest_url").asText();
        byte[] event = "{\"action\":\"opened\"}".getBytes(StandardCharsets.UTF_8);
        var in = node.api.call(
                "POST",
                "/in/" + sourceId,
                null,
                new String(event, StandardCharsets.UTF_8),
                Map.of(
                        "X-Hub-Signature-256",
                        dev.idem.wire.GitHubSignatureVerifier.sign("gh-secret", event),
                        "X-GitHub-Delivery",
                        "gh-1",
                        "X-GitHub-Event",
                        "pull_request",
                        "Content-Type",
                        "application/json"));
        assertThat(in.status()).as(in.raw()).isEqualTo(200);
        String[] deliveryId = new String[1];
        await().atMost(Duration.ofSeconds(30)).until(() -> {
            JsonNode data = apiGet("/v1/deliveries?source_id=" + sourceId).get("data");
            if (data.isEmpty() || !data.get(0).get("status").asText().equals("succeeded")) return false;
            deliveryId[0] = data.get(0).get("id").asText();
            return true;
        });

        openDashboard();
        browser.findElement(By.id("tab-sources")).click();
        WebElement row = wait.until(ExpectedConditions.visibilityOfElementLocated(
                By.cssSelector("#sources tr[data-id='" + sourceId + "']")));
        assertThat(row.findElement(By.cssSelector(".source-name")).getText()).isEqualTo("github-prod");
        assertThat(row.findElement(By.cssSelector(".ingest-url")).getText()).isEqualTo(ingestUrl);
        assertThat(browser.getPageSource()).doesNotContain("gh-secret");
        screenshot("sources");
        row.findElement(By.cssSelector("a.source-link")).click();
        wait.until(ExpectedConditions.textToBe(By.id("source-id"), sourceId));
        WebElement eventRow = wait.until(ExpectedConditions.visibilityOfElementLocated(
                By.cssSelector("#source-events tr[data-id='" + deliveryId[0] + "']")));
        assertThat(eventRow.findElement(By.cssSelector(".delivery-status")).getText())
                .isEqualTo("succeeded");
        assertThat(browser.getCurrentUrl()).endsWith("#/sources/" + sourceId);
        screenshot("source");
        eventRow.findElement(By.cssSelector("a.delivery-link")).click();
        wait.until(ExpectedConditions.textToBe(By.id("delivery-id"), deliveryId[0]));
        assertThat(wait.until(ExpectedConditions.visibilityOfElementLocated(By.id("request-body")))
                        .getText())
                .isEqualTo("{\"action\":\"opened\"}");
    }

    @Test
    void aWrongKeyShowsAClearErrorAndIsNotKept() throws Exception {
        openWith("sk_test_not_a_real_key");
        WebElement error = wait.until(ExpectedConditions.visibilityOfElementLocated(By.id("login-error")));
        assertThat(error.getText()).contains("refused").contains("Invalid API key");
        assertThat(browser.findElement(By.id("app")).isDisplayed()).isFalse();
        assertThat(js("return sessionStorage.length")).isEqualTo(0L);
        screenshot("login-refused");
    }

    @Test
    void theKeyIsKeptForTheTabUntilForgotten() {
        openDashboard();
        browser.navigate().refresh();
        wait.until(ExpectedConditions.visibilityOfElementLocated(By.id("app")));
        browser.findElement(By.id("forget-key")).click();
        wait.until(ExpectedConditions.visibilityOfElementLocated(By.id("api-key")));
        assertThat(js("return sessionStorage.length")).isEqualTo(0L);
        browser.navigate().refresh();
        wait.until(ExpectedConditions.visibilityOfElementLocated(By.id("api-key")));
        assertThat(browser.findElement(By.id("app")).isDisplayed()).isFalse();
    }
}
