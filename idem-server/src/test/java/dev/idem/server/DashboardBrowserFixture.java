package dev.idem.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import dev.idem.core.store.Store;
import dev.idem.store.testing.TestStores;
import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Clock;
import java.time.Duration;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;
import org.openqa.selenium.By;
import org.openqa.selenium.Dimension;
import org.openqa.selenium.JavascriptExecutor;
import org.openqa.selenium.OutputType;
import org.openqa.selenium.TakesScreenshot;
import org.openqa.selenium.WebDriver;
import org.openqa.selenium.support.ui.ExpectedConditions;
import org.openqa.selenium.support.ui.WebDriverWait;

/**
 * What the dashboard's browser tests stand on: a real node on SQLite in a directory of the class's own, two loopback
 * receivers ({@link #ok} answering 200, {@link #failing} 500), and a headless chromium ({@link Chromium}) whose viewer
 * is in the {@value #VIEWER_ZONE} zone, so local times differ from UTC. A subclass makes its data in its own
 * {@code @BeforeAll}, which runs after this one. Screenshots go under {@code target/dashboard-screenshots/}.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
abstract class DashboardBrowserFixture {
    static final String VIEWER_ZONE = "Asia/Tokyo";
    static final Path SCREENSHOTS = Path.of("target", "dashboard-screenshots");

    Store store;
    TestNode node;
    LoopbackReceiver ok;
    LoopbackReceiver failing;
    WebDriver browser;
    WebDriverWait wait;
    String base;

    @BeforeAll
    void startNodeReceiversAndBrowser(@TempDir Path dir) throws Exception {
        Files.createDirectories(SCREENSHOTS);
        store = TestStores.sqlite(dir, Clock.systemUTC());
        ok = new LoopbackReceiver();
        failing = new LoopbackReceiver();
        failing.status.set(500);
        node = new TestNode(store, dir, Clock.systemUTC(), 0);
        base = "http://127.0.0.1:" + node.server.port() + "/";
        browser = Chromium.open(dir.resolve("profile"), 1400, 1000, VIEWER_ZONE, false);
        wait = new WebDriverWait(browser, Duration.ofSeconds(20));
    }

    @AfterAll
    void stopBrowserNodeAndReceivers() {
        try {
            if (browser != null) browser.quit();
        } finally {
            if (node != null) node.close();
            if (ok != null) ok.close();
            if (failing != null) failing.close();
            if (store != null) store.close();
        }
    }

    /** {@code POST /v1/schedules}: the new schedule's id. */
    String create(String body) {
        var r = node.call("POST", "/v1/schedules", body);
        assertThat(r.status()).as(r.raw()).isEqualTo(201);
        return r.json().get("id").asText();
    }

    /** Waits until the schedule's latest delivery is in {@code status}; returns that delivery's id. */
    String awaitDelivery(String scheduleId, String status) {
        String[] id = new String[1];
        await().atMost(Duration.ofSeconds(30))
                .pollInterval(Duration.ofMillis(100))
                .until(() -> {
                    JsonNode data = node.call("GET", "/v1/deliveries?schedule_id=" + scheduleId, null)
                            .json()
                            .get("data");
                    if (data.isEmpty() || !data.get(0).get("status").asText().equals(status)) return false;
                    id[0] = data.get(0).get("id").asText();
                    return true;
                });
        return id[0];
    }

    Object js(String script, Object... args) {
        return ((JavascriptExecutor) browser).executeScript(script, args);
    }

    /** The text of field {@code name} of the definition list {@code list}, once drawn. */
    String field(String list, String name) {
        return wait.until(ExpectedConditions.visibilityOfElementLocated(
                        By.cssSelector("#" + list + " dd[data-field='" + name + "']")))
                .getText();
    }

    /** The whole page, not just the window, as {@code SCREENSHOTS/name.png}. */
    void screenshot(String name) throws Exception {
        // grow the window to the page's height for the shot
        long height = (Long) js("return Math.max(document.documentElement.scrollHeight, 600)");
        browser.manage().window().setSize(new Dimension(1400, (int) Math.min(height + 140, 4000)));
        File shot = ((TakesScreenshot) browser).getScreenshotAs(OutputType.FILE);
        browser.manage().window().setSize(new Dimension(1400, 1000));
        Path target = SCREENSHOTS.resolve(name + ".png");
        Files.copy(shot.toPath(), target, StandardCopyOption.REPLACE_EXISTING);
        assertThat(Files.readAllBytes(target)).as("a PNG").startsWith(0x89, 'P', 'N', 'G');
    }
}
