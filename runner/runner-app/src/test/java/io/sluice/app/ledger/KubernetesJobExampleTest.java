package io.sluice.app.ledger;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.MappingIterator;
import tools.jackson.dataformat.yaml.YAMLMapper;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * examples/kubernetes/sluice-job.yaml run for real, as its Indexed Job would run it, minus Kubernetes: one local
 * process per completion index, each with the container's arguments and environment (the Job's name as RUN_ID, as
 * the downward API gives it; {@code JOB_COMPLETION_INDEX} as the Job controller sets it; {@code $(VAR)} expanded as
 * the kubelet does), the ConfigMap's spec and the Secret's files at their mount paths (moved under a temporary
 * folder). Only the two database URLs and the passwords point at the test's PostgreSQL instead.
 */
class KubernetesJobExampleTest {
    private static final Path EXAMPLE = Path.of("../../examples/kubernetes/sluice-job.yaml");
    private static final Pattern VARIABLE = Pattern.compile("\\$\\(([A-Za-z_][A-Za-z0-9_]*)\\)");

    @TempDir
    Path dir;

    @Test
    void theIndexedJobsPodsShareOneRunAndCopyEverythingOnce() throws Exception {
        Map<String, JsonNode> resources = new HashMap<>();
        try (MappingIterator<JsonNode> documents = new YAMLMapper().readerFor(JsonNode.class)
                .readValues(EXAMPLE.toFile())) {
            while (documents.hasNext()) {
                JsonNode resource = documents.next();
                resources.put(resource.get("kind").asString(), resource);
            }
        }
        JsonNode job = resources.get("Job");
        JsonNode container = job.at("/spec/template/spec/containers/0");
        int completions = job.at("/spec/completions").asInt();
        assertEquals("Indexed", job.at("/spec/completionMode").asString());

        // The mounts, as the kubelet makes them: the ConfigMap's keys and the Secret's keys as files.
        LedgerFixture f = new LedgerFixture(dir, "k8s", 1);
        String password = "pw-" + ProcessHandle.current().pid();
        for (String db : List.of(f.source, f.target)) {
            f.sql(db, "DO $$ BEGIN IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = 'loader') THEN "
                    + "CREATE ROLE loader LOGIN SUPERUSER PASSWORD '" + password + "'; END IF; END $$");
        }
        f.sql(f.source, "CREATE TABLE public.orders (o_orderkey bigint, o_custkey bigint, o_comment text)",
                "INSERT INTO public.orders SELECT g, g % 1000, 'order ' || g FROM generate_series(1, 1000000) g",
                "ANALYZE public.orders");
        f.sql(f.target, "CREATE TABLE public.orders (o_orderkey bigint, o_custkey bigint, o_comment text)");
        Path root = dir.resolve("pod-filesystem");
        String spec = resources.get("ConfigMap").at("/data/orders.yaml").asString();
        Map<String, Path> mounts = new HashMap<>();
        for (JsonNode mount : container.get("volumeMounts")) {
            mounts.put(mount.get("name").asString(), root.resolve(mount.get("mountPath").asString().substring(1)));
        }
        Files.createDirectories(mounts.get("spec"));
        Files.writeString(mounts.get("spec").resolve("orders.yaml"), spec.replace("/etc/", root + "/etc/"));
        Files.createDirectories(mounts.get("secrets"));
        resources.get("Secret").get("stringData").propertyNames().forEach(key -> write(mounts.get("secrets")
                .resolve(key), password));

        String jobName = job.at("/metadata/name").asString();
        List<Process> pods = new ArrayList<>();
        for (int index = 0; index < completions; index++) {
            Map<String, String> env = new HashMap<>();
            for (JsonNode variable : container.get("env")) {
                String name = variable.get("name").asString();
                String fieldPath = variable.at("/valueFrom/fieldRef/fieldPath").asString("");
                env.put(name, fieldPath.equals("metadata.labels['batch.kubernetes.io/job-name']") ? jobName
                        : variable.get("value") == null ? "" : variable.get("value").asString());
            }
            env.put("JOB_COMPLETION_INDEX", String.valueOf(index));
            env.put("SOURCE_URL", f.pg.jdbcUrl(f.source)); // the only values that differ from a cluster's
            env.put("TARGET_URL", f.pg.jdbcUrl(f.target));
            env.put("SLUICE_HOME", dir.resolve("home-" + index).toString());
            List<String> command = new ArrayList<>(io.sluice.app.SluiceProcess.command());
            for (JsonNode arg : container.get("args")) {
                command.add(expand(arg.asString(), env).replace("/etc/", root + "/etc/"));
            }
            command.add("--progress-interval");
            command.add("1");
            ProcessBuilder pod = new ProcessBuilder(command).redirectErrorStream(true)
                    .redirectOutput(dir.resolve("pod-" + index + ".log").toFile());
            pod.environment().putAll(env);
            pods.add(pod.start());
        }
        for (int index = 0; index < pods.size(); index++) {
            assertTrue(pods.get(index).waitFor(180, TimeUnit.SECONDS), "pod " + index + " did not end");
            assertEquals(0, pods.get(index).exitValue(), Files.readString(dir.resolve("pod-" + index + ".log")));
        }
        assertEquals(0, f.scalar(f.target, "SELECT (SELECT count(*) FROM (SELECT * FROM public.orders EXCEPT ALL "
                + "SELECT o_orderkey, o_custkey, 'order ' || o_orderkey FROM generate_series(1, 1000000) "
                + "AS g(o_orderkey) CROSS JOIN LATERAL (SELECT o_orderkey % 1000 AS o_custkey) c) d) + "
                + "(1000000 - (SELECT count(*) FROM public.orders))"), "the target holds every order once");
        assertEquals(1, f.scalar(f.target, "SELECT count(DISTINCT run_id) FROM sluice.run_streams"),
                "one run: " + jobName);
        assertTrue(f.scalar(f.target, "SELECT count(*) FROM sluice.run_partitions WHERE run_id = '" + jobName
                + "' AND state = 'done'") >= 2, "the run has several partitions");
        // A pod that starts after the others finished finds the run done and ends 0 without joining it.
        assertTrue(f.scalar(f.target, "SELECT starts FROM sluice.run_streams WHERE run_id = '" + jobName + "'") >= 2,
                "several pods joined the run");
    }

    /** {@code $(VAR)} as the kubelet expands it in a container's arguments. */
    private static String expand(String argument, Map<String, String> env) {
        Matcher m = VARIABLE.matcher(argument);
        StringBuilder out = new StringBuilder();
        while (m.find()) {
            m.appendReplacement(out, Matcher.quoteReplacement(env.getOrDefault(m.group(1), m.group())));
        }
        return m.appendTail(out).toString();
    }

    private static void write(Path file, String content) {
        try {
            Files.writeString(file, content);
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }
}
