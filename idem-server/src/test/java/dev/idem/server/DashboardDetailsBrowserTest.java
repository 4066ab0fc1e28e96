package dev.idem.server;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.awt.image.BufferedImage;
import java.io.ByteArrayInputStream;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;
import javax.imageio.ImageIO;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.openqa.selenium.By;
import org.openqa.selenium.OutputType;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.support.ui.ExpectedConditions;

/**
 * The dashboard's details a new user met, in the same headless chromium as {@link DashboardBrowserTest} (a viewer
 * in {@value DashboardBrowserFixture#VIEWER_ZONE}): an error names its field once, a schedule's page shows its times in
 * the rule's zone too, the underscores of a key or an id are drawn in its fields, the dead-letter queue's select-all
 * box is not left ticked over an empty queue, and replay-all says what it skipped.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class DashboardDetailsBrowserTest extends DashboardBrowserFixture {
    private void open(String fragment) {
        browser.get(base);
        if (browser.findElements(By.id("app")).isEmpty()
                || !browser.findElement(By.id("app")).isDisplayed()) {
            wait.until(ExpectedConditions.visibilityOfElementLocated(By.id("api-key")))
                    .sendKeys(TestNode.TEST_KEY);
            browser.findElement(By.id("key-submit")).click();
            wait.until(ExpectedConditions.visibilityOfElementLocated(By.id("app")));
        }
        browser.get(base + fragment);
        wait.until(ExpectedConditions.visibilityOfElementLocated(By.id("app")));
    }

    @Test
    void aPreviewErrorNamesItsFieldOnce() {
        open("#/new");
        WebElement rule = wait.until(ExpectedConditions.visibilityOfElementLocated(By.id("create-when")));
        rule.sendKeys("FREQ=DAILLY");
        WebElement error = wait.until(ExpectedConditions.visibilityOfElementLocated(By.id("preview-error")));
        JsonNode refused = node.call(
                        "GET",
                        "/v1/recurrence/preview?rrule=" + URLEncoder.encode("FREQ=DAILLY", StandardCharsets.UTF_8)
                                + "&count=5",
                        null)
                .json()
                .get("error");
        String message = refused.get("message").asText();
        assertThat(message).as("the API's message names the field itself").startsWith("rrule");
        assertThat(refused.get("param").asText()).isEqualTo("rrule");
        wait.until(d -> !error.getText().isEmpty());
        assertThat(error.getText()).isEqualTo(message).doesNotStartWith("rrule: rrule");
    }

    @Test
    void aSchedulesPageShowsItsTimesInTheRulesZoneBesideTheViewers() {
        String id = create("{\"endpoint\":\"https://example.com/h\",\"rrule\":\"FREQ=DAILY;BYHOUR=9;BYMINUTE=0\","
                + "\"timezone\":\"Europe/Paris\",\"until\":\"2035-01-01T00:00:00Z\"}");
        JsonNode s = node.call("GET", "/v1/schedules/" + id, null).json();
        JsonNode first = node.call(
                        "GET",
                        "/v1/recurrence/preview?rrule="
                                + URLEncoder.encode("FREQ=DAILY;BYHOUR=9;BYMINUTE=0", StandardCharsets.UTF_8)
                                + "&timezone=Europe/Paris&count=1",
                        null)
                .json()
                .at("/occurrences/0");
        assertThat(s.get("next_fire_at").asText()).isEqualTo(first.get("utc").asText());
        open("#/schedules/" + id);
        WebElement next = wait.until(ExpectedConditions.visibilityOfElementLocated(
                By.cssSelector("#schedule-timing dd[data-field='Next fire']")));
        // the viewer's zone (Tokyo: 09:00 Paris is 16:00 or 17:00 there), then the rule's own
        assertThat(next.findElement(By.cssSelector(".rule-zone")).getText())
                .isEqualTo("· " + first.get("local").asText().replace('T', ' ') + " Europe/Paris");
        assertThat(next.findElement(By.cssSelector("time .local")).getText()).matches(".* 1[67]:00:00");
        assertThat(browser.findElement(By.cssSelector("#schedule-timing dd[data-field='Until'] .rule-zone"))
                        .getText())
                .isEqualTo("· 2035-01-01 01:00:00 Europe/Paris");
    }

    @Test
    void theUnderscoresOfAKeyAndOfAnIdAreDrawnInTheirFields() throws Exception {
        browser.get(base);
        js("sessionStorage.clear()");
        browser.navigate().refresh();
        WebElement key = wait.until(ExpectedConditions.visibilityOfElementLocated(By.id("api-key")));
        // the same field drawn twice: if the underscores are clipped away, both pictures are the same pixels
        assertThat(pixels(key, "placeholder", "sk_test_… or sk_live_…"))
                .isNotEqualTo(pixels(key, "placeholder", "sk test … or sk live …"));
        open("#/dead-letter");
        WebElement schedule = wait.until(ExpectedConditions.visibilityOfElementLocated(By.id("dlq-schedule")));
        assertThat(pixels(schedule, "value", "sch_01abc_x")).isNotEqualTo(pixels(schedule, "value", "sch 01abc x"));
        js("arguments[0].value = ''", schedule);
    }

    /** The field's pixels with {@code property} set to {@code text}, the caret hidden. */
    private int[] pixels(WebElement field, String property, String text) throws Exception {
        js(
                "arguments[0][arguments[1]] = arguments[2]; arguments[0].style.caretColor = 'transparent'; "
                        + "document.activeElement.blur()",
                field,
                property,
                text);
        BufferedImage shot = ImageIO.read(new ByteArrayInputStream(field.getScreenshotAs(OutputType.BYTES)));
        return shot.getRGB(0, 0, shot.getWidth(), shot.getHeight(), null, 0, shot.getWidth());
    }

    @Test
    void selectAllIsNotLeftTickedOverAnEmptyQueue() {
        String s = create("{\"endpoint\":\"" + failing.url("/select-all") + "\",\"retry\":{\"max_attempts\":1},"
                + "\"auto_pause_after\":0}");
        String delivery = awaitDelivery(s, "dead");
        open("#/dead-letter?schedule_id=" + s);
        wait.until(
                ExpectedConditions.visibilityOfElementLocated(By.cssSelector("#dlq tr[data-id='" + delivery + "']")));
        WebElement all = browser.findElement(By.id("dlq-select-all"));
        all.click();
        assertThat(all.isSelected()).isTrue();
        browser.findElement(By.id("dlq-replay-selected")).click();
        wait.until(ExpectedConditions.textToBePresentInElementLocated(By.id("notice"), "Replayed 1 of 1"));
        wait.until(ExpectedConditions.visibilityOfElementLocated(By.id("dlq-empty")));
        assertThat(all.isSelected()).as("nothing left to select").isFalse();
        assertThat(all.isEnabled()).isFalse();
    }

    @Test
    void replayAllSaysWhatItSkippedBecauseTheScheduleIsPaused() {
        String s = create("{\"endpoint\":\"" + failing.url("/paused") + "\",\"retry\":{\"max_attempts\":1},"
                + "\"auto_pause_after\":0}");
        String delivery = awaitDelivery(s, "dead");
        assertThat(node.call("POST", "/v1/schedules/" + s + "/pause", null).status())
                .isEqualTo(200);
        open("#/dead-letter?schedule_id=" + s);
        wait.until(
                ExpectedConditions.visibilityOfElementLocated(By.cssSelector("#dlq tr[data-id='" + delivery + "']")));
        browser.findElement(By.id("dlq-replay-all")).click();
        wait.until(ExpectedConditions.visibilityOfElementLocated(By.id("dlq-confirm-yes")))
                .click();
        wait.until(ExpectedConditions.textToBePresentInElementLocated(
                By.id("notice"),
                "Replayed 0 dead deliveries matching the filter. Skipped 1 whose schedule is paused: resume it, "
                        + "then replay again."));
        assertThat(node.call("GET", "/v1/deliveries/" + delivery, null)
                        .json()
                        .get("status")
                        .asText())
                .isEqualTo("dead");
    }
}
