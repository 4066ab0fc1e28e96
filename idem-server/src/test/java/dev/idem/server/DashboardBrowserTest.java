package dev.idem.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import dev.idem.core.store.Store;
import dev.idem.store.testing.TestStores;
import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.openqa.selenium.By;
import org.openqa.selenium.JavascriptExecutor;
import org.openqa.selenium.WebDriver;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.chrome.ChromeDriverService;
import org.openqa.selenium.chrome.ChromeOptions;
import org.openqa.selenium.support.ui.ExpectedConditions;
import org.openqa.selenium.support.ui.WebDriverWait;

/**
 * SPEC section 5 in a real headless browser: Debian's chromium driven through its own chromedriver (nothing
 * is downloaded: both paths are given, so Selenium Manager is never asked), against a real node on SQLite
 * with real receivers. A machine without chromium fails this test rather than skipping it, as a missing
 * database does: {@code apt-get install -y chromium chromium-driver} (.ci/run does it when missing).
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class DashboardBrowserTest {
    static final String CHROMIUM = System.getenv().getOrDefault("IDEM_TEST_CHROMIUM", "/usr/bin/chromium");
    static final String CHROMEDRIVER = System.getenv().getOrDefault("IDEM_TEST_CHROMEDRIVER", "/usr/bin/chromedriver");
    static final String HOSTILE = "<img src=x onerror=\"window.__pwned=1\">";
    static final String FAR = "2035-01-01T00:00:00.000Z";

    @TempDir
    static Path dir;
    Store store;
    TestNode node;
    LoopbackReceiver ok;
    LoopbackReceiver failing;
    WebDriver browser;
    WebDriverWait wait;
    String base;
    String farId;
    String deliveredId;
    String deadScheduleId;
    String deadDeliveryId;

    @BeforeAll
    void start() throws Exception {
        for (String binary : List.of(CHROMIUM, CHROMEDRIVER))
            assertThat(Files.isExecutable(Path.of(binary)))
                    .as("%s is missing: the dashboard test needs a real browser (apt-get install -y chromium chromium-driver)", binary).isTrue();
        store = TestStores.sqlite(dir, Clock.systemUTC());
        ok = new LoopbackReceiver();
        failing = new LoopbackReceiver();
        failing.status.set(500);
        failing.answer.set(HOSTILE);
        node = new TestNode(store, dir, Clock.systemUTC(), 0);
        base = "http://127.0.0.1:" + node.server.port() + "/";

        farId = create("{\"endpoint\":\"" + ok.url("/far") + "\",\"fire_at\":\"" + FAR + "\",\"metadata\":{\"note\":\"" + HOSTILE.replace("\"", "\\\"") + "\"}}");
        deliveredId = create("{\"endpoint\":\"" + ok.url("/now") + "\"}");
        deadScheduleId = create("{\"endpoint\":\"" + failing.url("/fail") + "\",\"retry\":{\"max_attempts\":1}}");
        awaitDelivery(deliveredId, "succeeded");
        deadDeliveryId = awaitDelivery(deadScheduleId, "dead");

        browser = openBrowser(dir.resolve("profile"));
        wait = new WebDriverWait(browser, Duration.ofSeconds(20));
    }

    static WebDriver openBrowser(Path profile) {
        System.setProperty("webdriver.chrome.driver", CHROMEDRIVER);
        ChromeOptions options = new ChromeOptions();
        options.setBinary(CHROMIUM);
        options.addArguments("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu", "--no-first-run",
                "--disable-background-networking", "--disable-extensions", "--window-size=1400,1000", "--user-data-dir=" + profile);
        ChromeDriverService service = new ChromeDriverService.Builder().usingDriverExecutable(new File(CHROMEDRIVER)).usingAnyFreePort().build();
        WebDriver driver = new ChromeDriver(service, options);
        driver.manage().timeouts().pageLoadTimeout(Duration.ofSeconds(20)).scriptTimeout(Duration.ofSeconds(10));
        return driver;
    }

    @AfterAll
    void stop() {
        try {
            if (browser != null) browser.quit();
        } finally {
            if (node != null) node.close();
            if (ok != null) ok.close();
            if (failing != null) failing.close();
            if (store != null) store.close();
        }
    }

    private String create(String body) {
        var r = node.call("POST", "/v1/schedules", body);
        assertThat(r.status()).as(r.raw()).isEqualTo(201);
        return r.json().get("id").asText();
    }

    private String awaitDelivery(String scheduleId, String status) {
        String[] id = new String[1];
        await().atMost(Duration.ofSeconds(20)).pollInterval(Duration.ofMillis(100)).until(() -> {
            JsonNode data = node.call("GET", "/v1/deliveries?schedule_id=" + scheduleId, null).json().get("data");
            if (data.isEmpty() || !data.get(0).get("status").asText().equals(status)) return false;
            id[0] = data.get(0).get("id").asText();
            return true;
        });
        return id[0];
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

    private Object js(String script) {
        return ((JavascriptExecutor) browser).executeScript(script);
    }

    private WebElement scheduleRow(String id) {
        return wait.until(ExpectedConditions.visibilityOfElementLocated(By.cssSelector("#schedules tr[data-id='" + id + "']")));
    }

    private void openSchedule(String id) {
        scheduleRow(id).findElement(By.cssSelector("a.schedule-link")).click();
        wait.until(ExpectedConditions.textToBe(By.id("schedule-id"), id));
    }

    /** Opens the attempts of the schedule's first delivery; returns its attempt rows. */
    private List<WebElement> attemptsOfFirstDelivery() {
        WebElement row = wait.until(ExpectedConditions.visibilityOfElementLocated(By.cssSelector("#deliveries tr.delivery")));
        row.findElement(By.cssSelector("button.show-attempts")).click();
        String id = row.getAttribute("data-id");
        return wait.until(ExpectedConditions.visibilityOfAllElementsLocatedBy(By.cssSelector("tr.attempts[data-delivery='" + id + "'] tr.attempt")));
    }

    @Test
    void schedulesAreListedWithTheirStatusAndNextFireTime() {
        openDashboard();
        WebElement far = scheduleRow(farId);
        String farStatus = node.call("GET", "/v1/schedules/" + farId, null).json().get("status").asText();
        assertThat(far.findElement(By.cssSelector(".schedule-status .status")).getText()).isEqualTo(farStatus);
        assertThat(far.findElement(By.cssSelector(".next-fire")).getText()).isEqualTo(FAR);
        WebElement fired = scheduleRow(deliveredId);
        assertThat(fired.findElement(By.cssSelector(".schedule-status .status")).getText()).isEqualTo("completed");
        assertThat(fired.findElement(By.cssSelector(".next-fire")).getText()).isEqualTo("—");
        assertThat(browser.getCurrentUrl()).doesNotContain(TestNode.TEST_KEY);
    }

    @Test
    void aSchedulesDeliveriesAndEachAttemptAreShown() {
        openDashboard();
        openSchedule(deliveredId);
        WebElement delivery = wait.until(ExpectedConditions.visibilityOfElementLocated(By.cssSelector("#deliveries tr.delivery")));
        assertThat(delivery.findElement(By.cssSelector(".delivery-status")).getText()).isEqualTo("succeeded");
        List<WebElement> attempts = attemptsOfFirstDelivery();
        assertThat(attempts).hasSize(1);
        WebElement first = attempts.get(0);
        assertThat(first.findElement(By.cssSelector(".attempt-number")).getText()).isEqualTo("1");
        assertThat(first.findElement(By.cssSelector(".attempt-status")).getText()).isEqualTo("200");
        assertThat(first.findElement(By.cssSelector(".attempt-response")).getText()).isEqualTo("ok");
        assertThat(first.getText()).containsPattern("\\d+ ms").containsPattern("\\d{4}-\\d{2}-\\d{2}T");
    }

    @Test
    void hostileMetadataAndResponseBodiesAreShownAsTextAndNeverRun() {
        openDashboard();
        assertThat(scheduleRow(farId).findElement(By.cssSelector(".metadata")).getText()).contains(HOSTILE.replace("\"", "\\\""));
        openSchedule(deadScheduleId);
        WebElement attempt = attemptsOfFirstDelivery().get(0);
        assertThat(attempt.findElement(By.cssSelector(".attempt-status")).getText()).isEqualTo("500");
        assertThat(attempt.findElement(By.cssSelector(".attempt-response")).getText()).isEqualTo(HOSTILE);
        assertThat(js("return document.images.length")).isEqualTo(0L);
        assertThat(js("return window.__pwned === undefined")).isEqualTo(true);
    }

    @Test
    void aDeadDeliveryIsInTheDeadLetterQueueAndReplaySendsItAgainWithTheSameWebhookId() {
        openDashboard();
        browser.findElement(By.id("tab-dlq")).click();
        WebElement row = wait.until(ExpectedConditions.visibilityOfElementLocated(By.cssSelector("#dlq tr[data-id='" + deadDeliveryId + "']")));
        assertThat(row.getText()).contains(deadScheduleId);
        int before = failing.requests.size();
        row.findElement(By.cssSelector("button.replay")).click();
        wait.until(ExpectedConditions.visibilityOfElementLocated(By.id("notice")));
        assertThat(browser.findElement(By.id("notice")).getText()).contains(deadDeliveryId);
        await().atMost(Duration.ofSeconds(20)).until(() -> failing.requests.size() > before);
        LoopbackReceiver.Received again = failing.requests.get(failing.requests.size() - 1);
        assertThat(again.header("webhook-id")).isEqualTo(deadDeliveryId).isEqualTo(failing.requests.get(0).header("webhook-id"));
        assertThat(Integer.parseInt(again.header("Idem-Attempt"))).isGreaterThan(1);
        // it failed again, so it is back in the queue
        awaitDelivery(deadScheduleId, "dead");
        browser.findElement(By.id("dlq-refresh")).click();
        wait.until(ExpectedConditions.visibilityOfElementLocated(By.cssSelector("#dlq tr[data-id='" + deadDeliveryId + "']")));
    }

    @Test
    void pauseAndResumeChangeTheScheduleStatus() {
        openDashboard();
        By status = By.cssSelector("#schedules tr[data-id='" + farId + "'] .schedule-status .status");
        scheduleRow(farId).findElement(By.cssSelector("button.pause")).click();
        wait.until(ExpectedConditions.textToBe(status, "paused"));
        assertThat(node.call("GET", "/v1/schedules/" + farId, null).json().get("status").asText()).isEqualTo("paused");
        scheduleRow(farId).findElement(By.cssSelector("button.resume")).click();
        wait.until(ExpectedConditions.textToBe(status, "active"));
        assertThat(node.call("GET", "/v1/schedules/" + farId, null).json().get("status").asText()).isEqualTo("active");
    }

    @Test
    void theCountersShowNumbersThatMoveAfterDeliveries() {
        openDashboard();
        wait.until(d -> d.findElement(By.id("counter-finished")).getText().matches("\\d+"));
        int before = Integer.parseInt(browser.findElement(By.id("counter-finished")).getText());
        assertThat(browser.findElement(By.id("counter-dead")).getText()).matches("\\d+");
        assertThat(browser.findElement(By.id("counter-lag")).getText()).matches("[\\d.]+ (ms|s|min)");
        for (int i = 0; i < 3; i++) create("{\"endpoint\":\"" + ok.url("/count") + "\"}");
        // refreshed by the page's own timer, nothing clicked
        wait.until(d -> {
            int now = Integer.parseInt(d.findElement(By.id("counter-finished")).getText());
            return now != before && now >= 3;
        });
        assertThat(Double.parseDouble(browser.findElement(By.id("counter-rate")).getText())).isPositive();
    }

    @Test
    void aWrongKeyShowsAClearErrorAndIsNotKept() {
        openWith("sk_test_not_a_real_key");
        WebElement error = wait.until(ExpectedConditions.visibilityOfElementLocated(By.id("login-error")));
        assertThat(error.getText()).contains("refused").contains("Invalid API key");
        assertThat(browser.findElement(By.id("app")).isDisplayed()).isFalse();
        assertThat(js("return sessionStorage.length")).isEqualTo(0L);
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
