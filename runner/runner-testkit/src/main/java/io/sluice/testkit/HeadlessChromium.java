package io.sluice.testkit;

import org.junit.jupiter.api.Assertions;
import org.junit.jupiter.api.Assumptions;
import org.openqa.selenium.Dimension;
import org.openqa.selenium.OutputType;
import org.openqa.selenium.TakesScreenshot;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.chrome.ChromeDriverService;
import org.openqa.selenium.chrome.ChromeOptions;
import org.openqa.selenium.logging.LogEntry;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.logging.Level;

/**
 * The distribution's headless Chromium ({@code apt-get install chromium chromium-driver}, which .ci/run does), driven
 * through its chromedriver; never a downloaded browser. Where it is not installed the browser tests are skipped with
 * the reason, unless {@code SLUICE_BROWSER_TESTS=required} (set by .ci/run), which makes that a failure.
 */
public final class HeadlessChromium implements AutoCloseable {
    private static final JsonMapper JSON = JsonMapper.builder().build();
    private static final Path CHROMIUM = Path.of(System.getenv().getOrDefault("SLUICE_CHROMIUM", "/usr/bin/chromium"));
    private static final Path DRIVER = Path.of(System.getenv().getOrDefault("SLUICE_CHROMEDRIVER",
            "/usr/bin/chromedriver"));

    private final ChromeDriver driver;

    private HeadlessChromium(ChromeDriver driver) {
        this.driver = driver;
    }

    /** A browser, or the test is skipped (failed when browser tests are required) saying what to install. */
    public static HeadlessChromium startOrSkip() {
        if (!Files.isExecutable(CHROMIUM) || !Files.isExecutable(DRIVER)) {
            String why = "no headless Chromium: " + CHROMIUM + " or " + DRIVER + " is missing (Debian: apt-get install "
                    + "chromium chromium-driver; .ci/run installs them)";
            if ("required".equals(System.getenv("SLUICE_BROWSER_TESTS"))) {
                Assertions.fail(why);
            }
            Assumptions.abort(why);
        }
        ChromeOptions options = new ChromeOptions();
        options.setBinary(CHROMIUM.toFile());
        options.addArguments("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                "--hide-scrollbars", "--no-first-run", "--disable-background-networking", "--disable-sync",
                "--disable-component-update", "--disable-default-apps", "--force-device-scale-factor=1");
        // The performance log carries every network request the page makes (Network.requestWillBeSent).
        options.setCapability("goog:loggingPrefs", Map.of("performance", "ALL", "browser", "ALL"));
        ChromeDriverService service = new ChromeDriverService.Builder().usingDriverExecutable(DRIVER.toFile())
                .usingAnyFreePort().build();
        ChromeDriver driver = new ChromeDriver(service, options);
        driver.manage().window().setSize(new Dimension(1400, 2200));
        return new HeadlessChromium(driver);
    }

    public ChromeDriver driver() {
        return driver;
    }

    /** The URLs the page requested since the last call (the page itself included). */
    public List<String> requestedUrls() {
        List<String> urls = new ArrayList<>();
        for (LogEntry entry : driver.manage().logs().get("performance")) {
            JsonNode message = JSON.readTree(entry.getMessage()).path("message");
            if ("Network.requestWillBeSent".equals(message.path("method").asString())) {
                urls.add(message.path("params").path("request").path("url").asString());
            }
        }
        return urls;
    }

    /** Errors the page's scripts logged, since the last call. */
    public List<String> consoleErrors() {
        List<String> errors = new ArrayList<>();
        for (LogEntry entry : driver.manage().logs().get("browser")) {
            if (entry.getLevel().intValue() >= Level.SEVERE.intValue()) {
                errors.add(entry.getMessage());
            }
        }
        return errors;
    }

    /** Saves what the browser shows to {@code file} (kept by CI as an artifact). */
    public void screenshot(Path file) throws Exception {
        File shot = ((TakesScreenshot) driver).getScreenshotAs(OutputType.FILE);
        Files.createDirectories(file.getParent());
        Files.copy(shot.toPath(), file, StandardCopyOption.REPLACE_EXISTING);
    }

    @Override
    public void close() {
        driver.quit();
    }
}
