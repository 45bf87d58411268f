package io.sluice.app.lineage;

import java.io.IOException;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

import static java.util.Objects.requireNonNull;

/**
 * Sends events in order on a thread of its own, so a slow or absent receiver never holds up a copy; a failed send is
 * counted and its first cause kept, never thrown: lineage must not fail a load. {@link #close} waits for what is
 * queued at most one timeout per event still queued, then gives up on the rest.
 */
final class LineageSender implements AutoCloseable {
    private final LineageSettings settings;
    private final ExecutorService queue = Executors.newSingleThreadExecutor(Thread.ofPlatform().daemon()
            .name("sluice-openlineage").factory());
    private final HttpClient http;
    private final AtomicInteger queued = new AtomicInteger();
    private final AtomicInteger failed = new AtomicInteger();
    private final AtomicReference<String> firstFailure = new AtomicReference<>();

    LineageSender(LineageSettings settings) {
        this.settings = requireNonNull(settings, "settings is null");
        this.http = settings.transport() == LineageSettings.Transport.HTTP
                ? HttpClient.newBuilder().connectTimeout(settings.timeout()).build() : null;
    }

    void send(String event) {
        queued.incrementAndGet();
        queue.execute(() -> {
            try {
                deliver(event);
            } catch (IOException | RuntimeException e) {
                fail(e.getClass().getSimpleName() + ": " + e.getMessage());
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                fail("interrupted");
            } finally {
                queued.decrementAndGet();
            }
        });
    }

    private void deliver(String event) throws IOException, InterruptedException {
        switch (settings.transport()) {
            case HTTP -> {
                HttpRequest.Builder request = HttpRequest.newBuilder(settings.url().orElseThrow())
                        .timeout(settings.timeout())
                        .header("Content-Type", "application/json")
                        .POST(HttpRequest.BodyPublishers.ofString(event, StandardCharsets.UTF_8));
                settings.apiKey().ifPresent(key -> request.header("Authorization", "Bearer " + key));
                HttpResponse<String> response = http.send(request.build(),
                        HttpResponse.BodyHandlers.ofString(StandardCharsets.UTF_8));
                if (response.statusCode() / 100 != 2) {
                    fail("HTTP " + response.statusCode() + " from " + settings.url().orElseThrow());
                }
            }
            case FILE -> Files.writeString(settings.file().orElseThrow(), event + "\n", StandardCharsets.UTF_8,
                    StandardOpenOption.CREATE, StandardOpenOption.APPEND);
            case CONSOLE -> System.err.println(event);
            case NONE -> {
            }
        }
    }

    private void fail(String cause) {
        failed.incrementAndGet();
        firstFailure.compareAndSet(null, cause);
    }

    /** How many events could not be delivered, and why the first one failed. */
    String failures() {
        return failed.get() == 0 ? "" : failed.get() + " event(s) not delivered (first: " + firstFailure.get() + ")";
    }

    @Override
    public void close() {
        queue.shutdown();
        try {
            long waitMillis = settings.timeout().toMillis() * Math.max(1, queued.get()) + 1_000;
            if (!queue.awaitTermination(waitMillis, TimeUnit.MILLISECONDS)) {
                int left = queued.get();
                queue.shutdownNow();
                failed.addAndGet(left);
                firstFailure.compareAndSet(null, "still queued after " + Duration.ofMillis(waitMillis).toSeconds()
                        + " s");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            queue.shutdownNow();
        }
    }
}
