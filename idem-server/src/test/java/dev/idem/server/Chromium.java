package dev.idem.server;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.logging.Level;
import org.openqa.selenium.JavascriptExecutor;
import org.openqa.selenium.WebDriver;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.chrome.ChromeDriverService;
import org.openqa.selenium.chrome.ChromeOptions;
import org.openqa.selenium.logging.LogType;
import org.openqa.selenium.logging.LoggingPreferences;

/**
 * The browser every page test drives: Debian's headless chromium through its own chromedriver (both paths given, so
 * Selenium Manager is never asked and nothing is downloaded), and axe-core (from its npm package, a test dependency)
 * run in it. A machine without chromium fails the tests rather than skipping them, as a missing database does:
 * {@code apt-get install -y chromium chromium-driver} (.ci/run does it when missing).
 */
final class Chromium {
    static final String BINARY = System.getenv().getOrDefault("IDEM_TEST_CHROMIUM", "/usr/bin/chromium");
    static final String DRIVER = System.getenv().getOrDefault("IDEM_TEST_CHROMEDRIVER", "/usr/bin/chromedriver");
    static final String AXE = "META-INF/resources/webjars/axe-core/4.6.3/axe.min.js";

    private Chromium() {}

    /**
     * A new headless chromium with its own profile.
     *
     * @param zone the time zone the browser runs in (its local times), or null for the machine's
     * @param networkLog whether to keep the network log too (to read every request's URL and headers)
     */
    static WebDriver open(Path profile, int width, int height, String zone, boolean networkLog) {
        for (String binary : List.of(BINARY, DRIVER))
            assertThat(Files.isExecutable(Path.of(binary)))
                    .as(
                            "%s is missing: the browser tests need a real browser (apt-get install -y chromium"
                                    + " chromium-driver)",
                            binary)
                    .isTrue();
        System.setProperty("webdriver.chrome.driver", DRIVER);
        ChromeOptions options = new ChromeOptions();
        options.setBinary(BINARY);
        options.addArguments(
                "--headless=new",
                "--no-sandbox",
                "--disable-dev-shm-usage",
                "--disable-gpu",
                "--no-first-run",
                "--disable-background-networking",
                "--disable-extensions",
                "--window-size=" + width + "," + height,
                "--user-data-dir=" + profile);
        LoggingPreferences logs = new LoggingPreferences();
        logs.enable(LogType.BROWSER, Level.ALL);
        if (networkLog) logs.enable(LogType.PERFORMANCE, Level.ALL);
        options.setCapability("goog:loggingPrefs", logs);
        ChromeDriverService.Builder service = new ChromeDriverService.Builder()
                .usingDriverExecutable(new File(DRIVER))
                .usingAnyFreePort();
        // the browser inherits the driver's environment
        if (zone != null) service.withEnvironment(Map.of("TZ", zone));
        WebDriver driver = new ChromeDriver(service.build(), options);
        driver.manage().timeouts().pageLoadTimeout(Duration.ofSeconds(30)).scriptTimeout(Duration.ofSeconds(20));
        return driver;
    }

    /** axe-core's WCAG 2 A and AA and best-practice rules run against the page as it is now: one line a violation. */
    @SuppressWarnings("unchecked")
    static List<String> axeViolations(WebDriver browser) throws IOException {
        JavascriptExecutor js = (JavascriptExecutor) browser;
        if (js.executeScript("return typeof axe").equals("undefined")) {
            try (InputStream in = Chromium.class.getClassLoader().getResourceAsStream(AXE)) {
                assertThat(in).as(AXE + " on the test classpath").isNotNull();
                js.executeScript(new String(in.readAllBytes(), StandardCharsets.UTF_8));
            }
        }
        List<Object> found = (List<Object>) js.executeAsyncScript("const done = arguments[arguments.length - 1];"
                + "axe.run(document, {runOnly: {type: 'tag', values: ['wcag2a', 'wcag2aa', 'best-practice']}})"
                + ".then(r => done(r.violations.map(v => v.id + ': ' + v.help + ' ' +"
                + " v.nodes.map(n => n.target.join(' ')).join(', '))), e => done(['axe failed: ' + e]));");
        return found.stream().map(String::valueOf).toList();
    }
}
