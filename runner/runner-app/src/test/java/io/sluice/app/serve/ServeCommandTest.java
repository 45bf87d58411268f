package io.sluice.app.serve;

import io.sluice.app.CliRun;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/** The one command that starts the service, as a real process: token from the environment, stop on SIGTERM. */
class ServeCommandTest {
    private static final String TOKEN = "process-token-0123456789abcdef";
    private static final String TOKEN_VARIABLE = "SLUICE_API_TOKEN";
    private static final Pattern LISTENING = Pattern.compile("listening on http://127\\.0\\.0\\.1:(\\d+)");

    @TempDir
    Path dir;

    @Test
    void serveStartsWithTheTokenFromTheEnvironmentAndStopsOnSigterm() throws Exception {
        Path specs = Files.createDirectories(dir.resolve("specs"));
        Process process = sluice(List.of("serve", "--specs", specs.toString(), "--port", "0", "--state-dir",
                dir.resolve("state").toString()), TOKEN);
        BlockingQueue<String> lines = lines(process);
        try {
            int port = awaitPort(lines, process);
            HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
            HttpResponse<String> health = http.send(HttpRequest.newBuilder(
                    URI.create("http://127.0.0.1:" + port + "/actuator/health")).build(),
                    HttpResponse.BodyHandlers.ofString());
            assertEquals(200, health.statusCode());
            HttpResponse<String> specsList = http.send(HttpRequest.newBuilder(
                    URI.create("http://127.0.0.1:" + port + "/api/specs")).header("Authorization", "Bearer " + TOKEN)
                    .build(), HttpResponse.BodyHandlers.ofString());
            assertEquals(200, specsList.statusCode(), specsList.body());

            process.destroy(); // SIGTERM
            assertTrue(process.waitFor(60, TimeUnit.SECONDS), "stops on SIGTERM");
            List<String> output = new ArrayList<>();
            lines.drainTo(output);
            assertFalse(String.join("\n", output).contains(TOKEN), "the token is never printed");
        } finally {
            process.destroyForcibly();
        }
    }

    @Test
    void serveRefusesToStartWithoutAToken() throws Exception {
        Process process = sluice(List.of("serve", "--specs", dir.toString(), "--port", "0"), null);
        assertTrue(process.waitFor(60, TimeUnit.SECONDS));
        String err = new String(process.getErrorStream().readAllBytes(), StandardCharsets.UTF_8);
        assertEquals(2, process.exitValue(), err);
        assertTrue(err.contains("an API token is required: set $SLUICE_API_TOKEN or pass --token-file FILE"), err);
    }

    @Test
    void serveRefusesAShortTokenAndAMissingFolder() throws Exception {
        Path shortToken = dir.resolve("token");
        Files.writeString(shortToken, "short\n");
        CliRun weak = CliRun.of("serve", "--specs", dir.toString(), "--token-file", shortToken.toString());
        assertEquals(2, weak.exitCode(), weak.all());
        assertTrue(weak.err().contains("at least 16 characters"), weak.err());
        assertFalse(weak.err().contains("short"), "the token itself is not repeated: " + weak.err());

        CliRun missing = CliRun.of("serve", "--specs", dir.resolve("nope").toString(), "--token-file",
                shortToken.toString());
        assertEquals(2, missing.exitCode(), missing.all());
        assertTrue(missing.err().contains("is not a folder"), missing.err());
    }

    private static Process sluice(List<String> args, String token) throws Exception {
        List<String> command = io.sluice.app.SluiceProcess.command(List.of(), args);
        ProcessBuilder builder = new ProcessBuilder(command);
        builder.environment().remove(TOKEN_VARIABLE);
        if (token != null) {
            builder.environment().put(TOKEN_VARIABLE, token);
        }
        return builder.start();
    }

    private static BlockingQueue<String> lines(Process process) {
        BlockingQueue<String> lines = new LinkedBlockingQueue<>();
        Thread.ofPlatform().daemon().start(() -> {
            try (BufferedReader reader = new BufferedReader(new InputStreamReader(process.getErrorStream(),
                    StandardCharsets.UTF_8))) {
                reader.lines().forEach(lines::add);
            } catch (java.io.IOException e) {
                // The process ended.
            }
        });
        return lines;
    }

    private static int awaitPort(BlockingQueue<String> lines, Process process) throws InterruptedException {
        long deadline = System.nanoTime() + Duration.ofSeconds(90).toNanos();
        List<String> seen = new ArrayList<>();
        while (System.nanoTime() < deadline) {
            String line = lines.poll(1, TimeUnit.SECONDS);
            if (line != null) {
                seen.add(line);
                Matcher matcher = LISTENING.matcher(line);
                if (matcher.find()) {
                    return Integer.parseInt(matcher.group(1));
                }
            } else if (!process.isAlive()) {
                break;
            }
        }
        return fail("no 'listening on' line: " + seen);
    }
}
