package io.sluice.app.serve;

import io.sluice.testkit.HeadlessChromium;
import io.sluice.app.report.TestPipeline;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.openqa.selenium.By;
import org.openqa.selenium.StaleElementReferenceException;
import org.openqa.selenium.WebDriver;
import org.openqa.selenium.support.ui.WebDriverWait;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The pages of sluice serve: the login cookie and its limits over real HTTP, then in a headless browser a run
 * started from the page, followed live until it is done, a failed run resumed from the page, and a run read from
 * the spec's ledger.
 */
class ServeLivePageTest {
    private static final String TOKEN = "page-token-0123456789abcdef";
    private static final JsonMapper JSON = JsonMapper.builder().build();
    private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    @TempDir
    static Path root;
    private static TestPipeline pipeline;
    private static SluiceServer server;

    @BeforeAll
    static void start() throws Exception {
        pipeline = TestPipeline.create("livepage");
        Path specs = Files.createDirectories(root.resolve("specs"));
        pipeline.slowSpec(specs, "slow", 3);
        Path failing = pipeline.spec(specs, "items", "items");
        Files.writeString(failing, Files.readString(failing).replace("    load-mode: truncate",
                "    load-mode: truncate\n    batch-size: 1250\n    retry: { max-attempts: 1 }"));
        server = assertTimeoutPreemptively(Duration.ofSeconds(60), () -> SluiceServer.start(new ServeSettings(specs,
                ApiToken.of(TOKEN), "127.0.0.1", 0, root.resolve("state"), 2)));
    }

    @AfterAll
    static void stop() {
        if (server != null) {
            assertTimeoutPreemptively(Duration.ofSeconds(60), server::close);
        }
    }

    private static String base() {
        return "http://127.0.0.1:" + server.port();
    }

    private static HttpResponse<String> send(HttpRequest.Builder request) throws Exception {
        return HTTP.send(request.build(), HttpResponse.BodyHandlers.ofString());
    }

    @Test
    void theLoginCookieOpensThePagesAndChangesNeedThePagesHeader() throws Exception {
        HttpResponse<String> page = send(HttpRequest.newBuilder(URI.create(base() + "/")));
        assertEquals(303, page.statusCode());
        assertEquals("/login", page.headers().firstValue("Location").orElse(""));
        assertEquals(200, send(HttpRequest.newBuilder(URI.create(base() + "/login"))).statusCode());
        assertEquals(401, send(HttpRequest.newBuilder(URI.create(base() + "/api/runs"))).statusCode());

        HttpResponse<String> wrong = send(form("wrong-token-0123456789abcdef"));
        assertEquals(401, wrong.statusCode());
        assertTrue(wrong.headers().firstValue("Set-Cookie").isEmpty());
        HttpResponse<String> login = send(form(TOKEN));
        assertEquals(303, login.statusCode());
        String setCookie = login.headers().firstValue("Set-Cookie").orElseThrow();
        assertTrue(setCookie.contains("HttpOnly") && setCookie.contains("SameSite=Strict"), setCookie);
        String cookie = setCookie.substring(0, setCookie.indexOf(';'));

        HttpResponse<String> index = send(HttpRequest.newBuilder(URI.create(base() + "/")).header("Cookie", cookie));
        assertEquals(200, index.statusCode());
        assertTrue(index.body().contains("Runs of this service"), index.body());
        assertFalse(index.body().contains(TOKEN));
        HttpResponse<String> forged = send(HttpRequest.newBuilder(URI.create(base() + "/api/runs"))
                .header("Cookie", cookie).header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString("{\"spec\": \"slow.yaml\"}")));
        assertEquals(403, forged.statusCode(), "a cross-site form could send the cookie, but not the header");
        assertEquals(401, send(HttpRequest.newBuilder(URI.create(base() + "/api/runs"))
                .header("Cookie", PageHandlers.COOKIE + "=wrong-token-0123456789abcdef")).statusCode());
        // The page's log-out button is a plain form: it works without the pages' header and clears the cookie.
        HttpResponse<String> logout = send(HttpRequest.newBuilder(URI.create(base() + "/logout"))
                .header("Cookie", cookie).header("Content-Type", "application/x-www-form-urlencoded")
                .POST(HttpRequest.BodyPublishers.noBody()));
        assertEquals(303, logout.statusCode(), logout.body());
        assertEquals("/login", logout.headers().firstValue("Location").orElse(""));
        assertTrue(logout.headers().firstValue("Set-Cookie").orElse("").contains("Max-Age=0"),
                logout.headers().toString());
        assertFalse(cookie.contains(TOKEN), "the cookie holds a session, never the API token: " + cookie);
        HttpResponse<String> afterLogout = send(HttpRequest.newBuilder(URI.create(base() + "/"))
                .header("Cookie", cookie));
        assertEquals(303, afterLogout.statusCode(), "the session ended with the logout");
    }

    @Test
    void oversizedBodiesAreRefusedBeforeTheyAreRead() throws Exception {
        String huge = "token=" + "x".repeat(2 * 1024 * 1024);
        HttpResponse<String> login = send(HttpRequest.newBuilder(URI.create(base() + "/login"))
                .header("Content-Type", "application/x-www-form-urlencoded")
                .POST(HttpRequest.BodyPublishers.ofString(huge)));
        assertEquals(413, login.statusCode(), login.body());
        HttpResponse<String> api = send(HttpRequest.newBuilder(URI.create(base() + "/api/runs"))
                .header("Authorization", "Bearer " + TOKEN).header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString("{\"spec\": \"" + "y".repeat(2 * 1024 * 1024) + "\"}")));
        assertEquals(413, api.statusCode(), api.body());
        assertTrue(api.body().contains("larger than"), api.body());
    }

    private static HttpRequest.Builder form(String token) {
        return HttpRequest.newBuilder(URI.create(base() + "/login"))
                .header("Content-Type", "application/x-www-form-urlencoded")
                .POST(HttpRequest.BodyPublishers.ofString("token=" + URLEncoder.encode(token, StandardCharsets.UTF_8)));
    }

    @Test
    void aRunStartedFromThePageIsFollowedLiveAndAFailedOneIsResumedFromIt() throws Exception {
        try (var chromium = HeadlessChromium.startOrSkip()) {
            WebDriver driver = chromium.driver();
            // A page that navigates (the log-in's redirect, a run's start) replaces the body between a look-up and
            // the read of its attribute: that is "not yet", not a failure.
            var wait = new WebDriverWait(driver, Duration.ofSeconds(60)).ignoring(StaleElementReferenceException.class);
            driver.get(base() + "/runs/none");
            wait.until(d -> d.getCurrentUrl().endsWith("/login"));
            driver.findElement(By.id("token")).sendKeys(TOKEN);
            driver.findElement(By.cssSelector("button[type=submit]")).click();
            wait.until(d -> "true".equals(d.findElement(By.tagName("body")).getAttribute("data-specs-loaded")));

            // Run the slow spec (one partition of at least 3 s) and follow it: running, then done, without a reload.
            driver.findElement(By.cssSelector("tr[data-spec='slow.yaml'] button[data-action=run]")).click();
            wait.until(d -> d.getCurrentUrl().contains("/runs/"));
            wait.until(d -> "running".equals(d.findElement(By.tagName("body")).getAttribute("data-state")));
            chromium.driver().executeScript("window.sluiceSameDocument = true");
            wait.until(d -> "done".equals(d.findElement(By.tagName("body")).getAttribute("data-state")));
            assertEquals(Boolean.TRUE, chromium.driver().executeScript("return window.sluiceSameDocument === true"),
                    "the page updated itself; it was not reloaded");
            assertEquals("done", driver.findElement(By.cssSelector("table.partitions tr[data-partition]"))
                    .getAttribute("data-state"));
            chromium.screenshot(Path.of("target", "report-screenshots", "serve-run-page.png"));

            // A run that fails (a trigger refuses one row), resumed from the list once the cause is gone.
            pipeline.executeOnTarget("CREATE FUNCTION refuse_row() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN "
                    + "IF NEW.id = 4321 THEN RAISE EXCEPTION 'refused row %', NEW.id; END IF; RETURN NEW; END $$");
            pipeline.executeOnTarget("CREATE TRIGGER refuse_row BEFORE INSERT ON items FOR EACH ROW "
                    + "EXECUTE FUNCTION refuse_row()");
            driver.get(base() + "/");
            wait.until(d -> "true".equals(d.findElement(By.tagName("body")).getAttribute("data-specs-loaded")));
            driver.findElement(By.cssSelector("tr[data-spec='items.yaml'] button[data-action=run]")).click();
            wait.until(d -> d.getCurrentUrl().contains("/runs/"));
            String runId = driver.getCurrentUrl().substring(driver.getCurrentUrl().lastIndexOf('/') + 1);
            wait.until(d -> "failed".equals(d.findElement(By.tagName("body")).getAttribute("data-state")));
            assertTrue(driver.findElements(By.cssSelector("table.partitions tr[data-state=failed]")).size() >= 1);
            pipeline.executeOnTarget("DROP TRIGGER refuse_row ON items");
            driver.get(base() + "/");
            wait.until(d -> !d.findElements(By.cssSelector("tr[data-run='" + runId + "'] button[data-action=resume]"))
                    .isEmpty());
            driver.findElement(By.cssSelector("tr[data-run='" + runId + "'] button[data-action=resume]")).click();
            wait.until(d -> d.getCurrentUrl().endsWith("/runs/" + runId));
            wait.until(d -> "done".equals(d.findElement(By.tagName("body")).getAttribute("data-state")));
            assertEquals(TestPipeline.ROWS, pipeline.count("items"));
            JsonNode resumed = JSON.readTree(send(HttpRequest.newBuilder(URI.create(base() + "/api/runs/" + runId))
                    .header("Authorization", "Bearer " + TOKEN)).body());
            assertTrue(resumed.get("summary").get("streams").get(0).get("partitions").get("done-before").asInt() > 0,
                    resumed.toString());

            // The same run from the spec's ledger: every partition done.
            driver.get(base() + "/specs/items.yaml/runs/" + runId);
            wait.until(d -> "done".equals(d.findElement(By.tagName("body")).getAttribute("data-state")));
            assertTrue(driver.getPageSource().contains("read from the ledger"));
            List<String> states = driver.findElements(By.cssSelector("table.partitions tr[data-partition]")).stream()
                    .map(e -> e.getAttribute("data-state")).toList();
            assertTrue(states.size() >= 3 && states.stream().allMatch("done"::equals), states.toString());
            assertEquals(List.of(), chromium.consoleErrors());
            List<String> elsewhere = chromium.requestedUrls().stream().filter(u -> !u.startsWith(base() + "/"))
                    .toList();
            assertEquals(List.of(), elsewhere, "the pages request nothing outside the service");
            chromium.screenshot(Path.of("target", "report-screenshots", "serve-ledger-page.png"));
        }
    }
}
