package io.sluice.testkit;

import org.gaul.s3proxy.BlobStores;
import org.gaul.s3proxy.S3Proxy;
import org.gaul.s3proxy.blobstore.BlobStore;
import software.amazon.awssdk.services.s3.model.ListObjectsV2Request;
import software.amazon.awssdk.services.s3.model.ListObjectsV2Response;
import software.amazon.awssdk.services.s3.model.PutObjectRequest;
import software.amazon.awssdk.services.s3.model.S3Object;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;

import static java.util.Objects.requireNonNull;

/**
 * A real S3-compatible server on 127.0.0.1 (S3Proxy, in this JVM, plain HTTP, path-style URLs, region
 * {@code us-east-1}, AWS signature v2 or v4). Objects live in memory ({@link Builder#inMemory()}, the default) or
 * in a folder ({@link Builder#filesystem(Path)}).
 *
 * <p>{@link #createBucket}, {@link #putObject} and {@link #listObjects} act on the server's store directly, so a
 * fixture is ready without a client; what the code under test reads goes over HTTP like against any S3.
 * DuckDB's httpfs cannot create buckets: create them here first. {@link #duckDbSecretSql(String)} gives the
 * {@code CREATE SECRET} statement that points DuckDB at this server.
 */
public final class TestingS3 implements AutoCloseable {
    public static final String DEFAULT_ACCESS_KEY = "sluice-test";
    public static final String DEFAULT_SECRET_KEY = "sluice-test-secret";
    public static final String REGION = "us-east-1";
    private static final Duration STARTUP_WAIT = Duration.ofSeconds(30);
    private static TestingS3 shared;

    private final S3Proxy proxy;
    private final BlobStore store;
    private final String accessKey;
    private final String secretKey;
    private final boolean isShared;
    private boolean closed;

    private TestingS3(S3Proxy proxy, BlobStore store, String accessKey, String secretKey, boolean isShared) {
        this.proxy = requireNonNull(proxy, "proxy is null");
        this.store = requireNonNull(store, "store is null");
        this.accessKey = requireNonNull(accessKey, "accessKey is null");
        this.secretKey = requireNonNull(secretKey, "secretKey is null");
        this.isShared = isShared;
    }

    /** Starts a new in-memory server with the default credentials; the caller closes it. */
    public static TestingS3 start() {
        return builder().start();
    }

    public static Builder builder() {
        return new Builder();
    }

    /**
     * One in-memory server per test JVM with the default credentials, stopped when the JVM exits; {@link #close()}
     * is a no-op on it. Use distinct bucket names per test.
     */
    public static synchronized TestingS3 shared() {
        if (shared == null) {
            TestingS3 server = builder().start(true);
            Runtime.getRuntime().addShutdownHook(new Thread(server::shutdown, "sluice-testing-s3-stop"));
            shared = server;
        }
        return shared;
    }

    /** {@code 127.0.0.1:PORT}, the form DuckDB's {@code ENDPOINT} wants. */
    public String endpoint() {
        return "127.0.0.1:" + proxy.getPort();
    }

    /** {@code http://127.0.0.1:PORT}, for SDK clients (use path-style access). */
    public String url() {
        return "http://" + endpoint();
    }

    public int port() {
        return proxy.getPort();
    }

    public String accessKey() {
        return accessKey;
    }

    public String secretKey() {
        return secretKey;
    }

    public String region() {
        return REGION;
    }

    /** Creates the bucket if it does not exist. */
    public void createBucket(String bucket) {
        requireNonNull(bucket, "bucket is null");
        if (!store.containerExists(bucket)) {
            store.createContainer(bucket);
        }
    }

    public void putObject(String bucket, String key, byte[] content) {
        requireNonNull(content, "content is null");
        put(bucket, key, new ByteArrayInputStream(content), content.length);
    }

    public void putObject(String bucket, String key, Path file) {
        requireNonNull(file, "file is null");
        try (InputStream in = Files.newInputStream(file)) {
            put(bucket, key, in, Files.size(file));
        } catch (IOException e) {
            throw new UncheckedIOException("could not upload " + file, e);
        }
    }

    private void put(String bucket, String key, InputStream content, long length) {
        requireNonNull(bucket, "bucket is null");
        requireNonNull(key, "key is null");
        store.putBlob(PutObjectRequest.builder().bucket(bucket).key(key).contentLength(length).build(), content);
    }

    /** The object's bytes. */
    public byte[] getObject(String bucket, String key) {
        requireNonNull(bucket, "bucket is null");
        requireNonNull(key, "key is null");
        try (InputStream in = store.getBlob(bucket, key)) {
            return in.readAllBytes();
        } catch (IOException e) {
            throw new UncheckedIOException("could not read s3://" + bucket + "/" + key, e);
        }
    }

    /** Keys in the bucket that start with {@code prefix} (empty for all), sorted. */
    public List<String> listObjects(String bucket, String prefix) {
        requireNonNull(bucket, "bucket is null");
        requireNonNull(prefix, "prefix is null");
        List<String> keys = new ArrayList<>();
        String token = null;
        do {
            ListObjectsV2Response page = store.list(ListObjectsV2Request.builder().bucket(bucket).prefix(prefix)
                    .continuationToken(token).build());
            page.contents().stream().map(S3Object::key).forEach(keys::add);
            token = Boolean.TRUE.equals(page.isTruncated()) ? page.nextContinuationToken() : null;
        } while (token != null);
        keys.sort(null);
        return keys;
    }

    /**
     * A DuckDB statement that makes {@code s3://} URLs reach this server, e.g. {@code CREATE OR REPLACE SECRET
     * name (TYPE s3, KEY_ID ..., ENDPOINT '127.0.0.1:PORT', URL_STYLE 'path', USE_SSL false, ...)}.
     */
    public String duckDbSecretSql(String secretName) {
        requireNonNull(secretName, "secretName is null");
        return "CREATE OR REPLACE SECRET " + secretName + " (TYPE s3, KEY_ID '" + accessKey + "', SECRET '"
                + secretKey + "', REGION '" + REGION + "', ENDPOINT '" + endpoint()
                + "', URL_STYLE 'path', USE_SSL false)";
    }

    /** Stops the server; in-memory objects are gone, a filesystem store keeps its folder. No-op on {@link #shared()}. */
    @Override
    public void close() {
        if (!isShared) {
            shutdown();
        }
    }

    private synchronized void shutdown() {
        if (closed) {
            return;
        }
        closed = true;
        try {
            proxy.stop();
        } catch (Exception e) {
            throw new IllegalStateException("could not stop S3Proxy", e);
        } finally {
            store.close();
        }
    }

    @Override
    public String toString() {
        return "TestingS3[" + url() + "]";
    }

    /** Options of a new server. */
    public static final class Builder {
        private String accessKey = DEFAULT_ACCESS_KEY;
        private String secretKey = DEFAULT_SECRET_KEY;
        private Path directory;

        private Builder() {
        }

        public Builder credentials(String accessKey, String secretKey) {
            this.accessKey = requireNonNull(accessKey, "accessKey is null");
            this.secretKey = requireNonNull(secretKey, "secretKey is null");
            return this;
        }

        /** Objects live in memory and vanish on close (the default). */
        public Builder inMemory() {
            this.directory = null;
            return this;
        }

        /** Objects live as files under {@code directory} (each bucket a sub-folder) and outlive the server. */
        public Builder filesystem(Path directory) {
            this.directory = requireNonNull(directory, "directory is null");
            return this;
        }

        public TestingS3 start() {
            return start(false);
        }

        private TestingS3 start(boolean isShared) {
            Quiet.noisyLoggers();
            Properties properties = new Properties();
            // Port 0: the OS picks a free one, so parallel test JVMs never collide.
            properties.setProperty("s3proxy.endpoint", "http://127.0.0.1:0");
            properties.setProperty("s3proxy.authorization", "aws-v2-or-v4");
            properties.setProperty("s3proxy.identity", accessKey);
            properties.setProperty("s3proxy.credential", secretKey);
            String provider = directory == null ? "transient" : "filesystem";
            properties.setProperty("jclouds.provider", provider);
            if (directory != null) {
                try {
                    Files.createDirectories(directory);
                } catch (IOException e) {
                    throw new UncheckedIOException("could not create " + directory, e);
                }
                properties.setProperty("jclouds.filesystem.basedir", directory.toAbsolutePath().toString());
            }
            BlobStore store = BlobStores.create(provider, properties);
            S3Proxy proxy;
            try {
                proxy = S3Proxy.Builder.fromProperties(properties).blobStore(store).build();
                proxy.start();
                awaitStarted(proxy);
            } catch (Exception e) {
                store.close();
                throw new IllegalStateException("could not start S3Proxy on 127.0.0.1", e);
            }
            return new TestingS3(proxy, store, accessKey, secretKey, isShared);
        }

        /** start() returns before Jetty listens; poll its state within a bounded deadline. */
        private static void awaitStarted(S3Proxy proxy) {
            long deadline = System.nanoTime() + STARTUP_WAIT.toNanos();
            while (!"STARTED".equals(proxy.getState())) {
                if (System.nanoTime() > deadline || "FAILED".equals(proxy.getState())) {
                    throw new IllegalStateException("S3Proxy did not start within " + STARTUP_WAIT
                            + " (state " + proxy.getState() + ")");
                }
                Thread.onSpinWait();
            }
        }
    }
}
