package io.sluice.testkit;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

import static java.util.Objects.requireNonNull;

/**
 * A TCP proxy on loopback in front of a test server (the S3 server), which injects the faults a network and an
 * object store show: connections refused (closed at once), transfers cut after some bytes of the answer, answers
 * that never come (a stall), and HTTP 503. A fault applies to the next {@code times} connections, then the proxy
 * passes traffic through again, so a retried read succeeds; {@link #pass()} ends a fault at once.
 */
public final class FaultProxy implements AutoCloseable {
    /** What the proxy does with a connection. */
    public enum Fault {
        /** Forwards both ways. */
        PASS,
        /** Closes the connection at once, before the request is read. */
        REFUSE,
        /** Forwards the request, then only the first {@code cutAfterBytes} of the answer, then closes. */
        CUT,
        /** Reads the request and never answers (until the proxy closes). */
        STALL,
        /** Answers every request with HTTP 503 Service Unavailable. */
        HTTP_503
    }

    private final ServerSocket listener;
    private final String targetHost;
    private final int targetPort;
    private final AtomicReference<Fault> fault = new AtomicReference<>(Fault.PASS);
    private final AtomicInteger faultsLeft = new AtomicInteger();
    private final AtomicInteger faulted = new AtomicInteger();
    private final Set<Socket> open = ConcurrentHashMap.newKeySet();
    private volatile int cutAfterBytes = 4096;
    private volatile boolean closed;

    private FaultProxy(String targetHost, int targetPort) throws IOException {
        this.targetHost = requireNonNull(targetHost, "targetHost is null");
        this.targetPort = targetPort;
        this.listener = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        Thread.ofPlatform().daemon().name("fault-proxy-accept").start(this::accept);
    }

    /** A proxy in front of {@code host:port}, listening on a free loopback port. */
    public static FaultProxy to(String host, int port) {
        try {
            return new FaultProxy(host, port);
        } catch (IOException e) {
            throw new UncheckedIOException("could not start the fault proxy", e);
        }
    }

    /** {@code host:port} clients connect to. */
    public String endpoint() {
        return "127.0.0.1:" + listener.getLocalPort();
    }

    /** The next {@code times} connections get {@code fault}; after them the proxy passes traffic through. */
    public void inject(Fault fault, int times) {
        requireNonNull(fault, "fault is null");
        faultsLeft.set(times);
        this.fault.set(fault);
    }

    /** With {@link Fault#CUT}: how many bytes of an answer pass before the connection is cut. */
    public void cutAfterBytes(int bytes) {
        this.cutAfterBytes = bytes;
    }

    /** Ends any fault at once (stalled connections are closed). */
    public void pass() {
        fault.set(Fault.PASS);
        faultsLeft.set(0);
        for (Socket s : open) {
            closeQuietly(s);
        }
    }

    /** How many connections got a fault so far. */
    public int faulted() {
        return faulted.get();
    }

    private void accept() {
        while (!closed) {
            Socket client;
            try {
                client = listener.accept();
            } catch (IOException e) {
                return; // closed
            }
            Fault now = Fault.PASS;
            if (faultsLeft.get() > 0 && faultsLeft.getAndDecrement() > 0) {
                now = fault.get();
                faulted.incrementAndGet();
            }
            Fault chosen = now;
            open.add(client);
            Thread.ofPlatform().daemon().name("fault-proxy-" + chosen).start(() -> serve(client, chosen));
        }
    }

    private void serve(Socket client, Fault fault) {
        try (client) {
            switch (fault) {
                case REFUSE -> {
                    client.setSoLinger(true, 0); // a reset, as a refused or dropped connection shows
                }
                case STALL -> {
                    InputStream in = client.getInputStream();
                    byte[] buffer = new byte[8192];
                    while (!closed && in.read(buffer) >= 0) {
                        // read the request, answer nothing: the client waits until it gives up or we close
                    }
                }
                case HTTP_503 -> {
                    readRequestHead(client.getInputStream());
                    byte[] body = "<Error><Code>SlowDown</Code><Message>Service Unavailable</Message></Error>"
                            .getBytes(StandardCharsets.UTF_8);
                    OutputStream out = client.getOutputStream();
                    out.write(("HTTP/1.1 503 Service Unavailable\r\nContent-Type: application/xml\r\nContent-Length: "
                            + body.length + "\r\nConnection: close\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
                    out.write(body);
                    out.flush();
                }
                case PASS, CUT -> forward(client, fault == Fault.CUT ? cutAfterBytes : Long.MAX_VALUE);
            }
        } catch (IOException ignored) {
            // the client or the server went away: the test looks at what the client saw
        } finally {
            open.remove(client);
        }
    }

    private void forward(Socket client, long answerBytes) throws IOException {
        try (Socket server = new Socket(targetHost, targetPort)) {
            open.add(server);
            Thread up = Thread.ofPlatform().daemon().name("fault-proxy-up").start(() -> {
                try {
                    client.getInputStream().transferTo(server.getOutputStream());
                } catch (IOException ignored) {
                    // either side closed
                } finally {
                    closeQuietly(server);
                }
            });
            InputStream in = server.getInputStream();
            OutputStream out = client.getOutputStream();
            byte[] buffer = new byte[8192];
            long left = answerBytes;
            int n;
            while (left > 0 && (n = in.read(buffer, 0, (int) Math.min(buffer.length, left))) >= 0) {
                out.write(buffer, 0, n);
                out.flush();
                left -= n;
            }
            if (left <= 0) {
                client.setSoLinger(true, 0); // cut: the rest of the answer never comes
            }
            closeQuietly(client);
            up.interrupt();
        } finally {
            open.removeIf(Socket::isClosed);
        }
    }

    private static void readRequestHead(InputStream in) throws IOException {
        int matched = 0;
        byte[] end = {'\r', '\n', '\r', '\n'};
        int b;
        while ((b = in.read()) >= 0) {
            matched = b == end[matched] ? matched + 1 : (b == '\r' ? 1 : 0);
            if (matched == end.length) {
                return;
            }
        }
    }

    private static void closeQuietly(Socket socket) {
        try {
            socket.close();
        } catch (IOException ignored) {
            // already closed
        }
    }

    @Override
    public void close() {
        closed = true;
        closeQuietly(listener);
        for (Socket s : open) {
            closeQuietly(s);
        }
    }

    private static void closeQuietly(ServerSocket socket) {
        try {
            socket.close();
        } catch (IOException ignored) {
            // already closed
        }
    }
}
