package io.sluice.app.lineage;

import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

import static java.util.Objects.requireNonNull;

/**
 * Where OpenLineage events go, read once from the environment with the names OpenLineage's own clients read:
 * {@code OPENLINEAGE_URL} (HTTP, to {@code OPENLINEAGE_ENDPOINT}, default {@code api/v1/lineage}, with
 * {@code OPENLINEAGE_API_KEY} as a bearer token), or {@code OPENLINEAGE__TRANSPORT__TYPE} = {@code file} (one JSON
 * event per line appended to {@code OPENLINEAGE__TRANSPORT__LOG_FILE_PATH}) or {@code console} (standard error);
 * {@code OPENLINEAGE_DISABLED=true} turns it off. {@code OPENLINEAGE_NAMESPACE} names the jobs' namespace (default
 * {@code sluice}); {@code OPENLINEAGE_PARENT_ID} ({@code namespace/job/runId}, as dbt-ol and Airflow pass it) makes
 * the run a child of the scheduler's task. Without any of it, no event is built.
 */
public record LineageSettings(Transport transport, Optional<URI> url, Optional<String> apiKey, Optional<Path> file,
                              String namespace, Optional<Parent> parent, Duration timeout) {
    public enum Transport { NONE, HTTP, FILE, CONSOLE }

    /** The scheduler's run this one belongs to. */
    public record Parent(String namespace, String job, String runId) {
        public Parent {
            requireNonNull(namespace, "namespace is null");
            requireNonNull(job, "job is null");
            requireNonNull(runId, "runId is null");
        }
    }

    public LineageSettings {
        requireNonNull(transport, "transport is null");
        requireNonNull(url, "url is null");
        requireNonNull(apiKey, "apiKey is null");
        requireNonNull(file, "file is null");
        requireNonNull(namespace, "namespace is null");
        requireNonNull(parent, "parent is null");
        requireNonNull(timeout, "timeout is null");
    }

    public static LineageSettings none() {
        return new LineageSettings(Transport.NONE, Optional.empty(), Optional.empty(), Optional.empty(), "sluice",
                Optional.empty(), Duration.ofSeconds(5));
    }

    public boolean enabled() {
        return transport != Transport.NONE;
    }

    /** From {@code env} (the process environment); a setting that cannot be used is an error naming it. */
    public static LineageSettings from(Map<String, String> env) {
        requireNonNull(env, "env is null");
        if ("true".equalsIgnoreCase(env.getOrDefault("OPENLINEAGE_DISABLED", ""))) {
            return none();
        }
        String namespace = nonBlank(env.get("OPENLINEAGE_NAMESPACE")).orElse("sluice");
        Optional<Parent> parent = nonBlank(env.get("OPENLINEAGE_PARENT_ID")).map(LineageSettings::parent);
        Duration timeout = nonBlank(env.get("OPENLINEAGE__TRANSPORT__TIMEOUT_IN_MILLIS"))
                .map(v -> Duration.ofMillis(Long.parseLong(v))).orElse(Duration.ofSeconds(5));
        String type = nonBlank(env.get("OPENLINEAGE__TRANSPORT__TYPE")).map(t -> t.toLowerCase(Locale.ROOT))
                .orElse(nonBlank(env.get("OPENLINEAGE_URL")).isPresent() ? "http" : "none");
        return switch (type) {
            case "none", "noop" -> none();
            case "console" -> new LineageSettings(Transport.CONSOLE, Optional.empty(), Optional.empty(),
                    Optional.empty(), namespace, parent, timeout);
            case "file" -> new LineageSettings(Transport.FILE, Optional.empty(), Optional.empty(),
                    Optional.of(Path.of(nonBlank(env.get("OPENLINEAGE__TRANSPORT__LOG_FILE_PATH")).orElseThrow(() ->
                            new IllegalArgumentException("OPENLINEAGE__TRANSPORT__TYPE=file needs "
                                    + "OPENLINEAGE__TRANSPORT__LOG_FILE_PATH, the file to append events to")))),
                    namespace, parent, timeout);
            case "http" -> {
                String base = nonBlank(env.get("OPENLINEAGE_URL"))
                        .or(() -> nonBlank(env.get("OPENLINEAGE__TRANSPORT__URL"))).orElseThrow(() ->
                                new IllegalArgumentException("OpenLineage over HTTP needs OPENLINEAGE_URL"));
                String endpoint = nonBlank(env.get("OPENLINEAGE_ENDPOINT"))
                        .or(() -> nonBlank(env.get("OPENLINEAGE__TRANSPORT__ENDPOINT"))).orElse("api/v1/lineage");
                URI url = URI.create(base.endsWith("/") ? base : base + "/")
                        .resolve(endpoint.startsWith("/") ? endpoint.substring(1) : endpoint);
                Optional<String> key = nonBlank(env.get("OPENLINEAGE_API_KEY"))
                        .or(() -> nonBlank(env.get("OPENLINEAGE__TRANSPORT__AUTH__API_KEY")));
                yield new LineageSettings(Transport.HTTP, Optional.of(url), key, Optional.empty(), namespace, parent,
                        timeout);
            }
            default -> throw new IllegalArgumentException("OPENLINEAGE__TRANSPORT__TYPE=" + type + " is not one "
                    + "Sluice sends to; use http (with OPENLINEAGE_URL), file or console");
        };
    }

    private static Parent parent(String value) {
        String[] parts = value.split("/");
        if (parts.length < 3) {
            throw new IllegalArgumentException("OPENLINEAGE_PARENT_ID is '" + value + "'; it must be "
                    + "namespace/job/runId");
        }
        String runId = parts[parts.length - 1];
        String namespace = parts[0];
        String job = String.join("/", java.util.Arrays.asList(parts).subList(1, parts.length - 1));
        java.util.UUID.fromString(runId); // an OpenLineage run id is a UUID
        return new Parent(namespace, job, runId);
    }

    private static Optional<String> nonBlank(String value) {
        return value == null || value.isBlank() ? Optional.empty() : Optional.of(value.strip());
    }
}
