package io.sluice.app.telemetry;

import com.sun.net.httpserver.HttpServer;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Executors;

/**
 * A loopback OTLP/HTTP receiver: accepts {@code POST /v1/traces} and {@code /v1/metrics} (protobuf) as a collector
 * does, answers 200 and keeps the bodies for the test to read.
 */
final class OtlpReceiver implements AutoCloseable {
    record Request(String path, String contentType, byte[] body) {
    }

    private final HttpServer server;
    private final List<Request> requests = new ArrayList<>();

    OtlpReceiver() throws IOException {
        server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        server.createContext("/", exchange -> {
            byte[] body = exchange.getRequestBody().readAllBytes();
            synchronized (requests) {
                requests.add(new Request(exchange.getRequestURI().getPath(),
                        exchange.getRequestHeaders().getFirst("Content-Type"), body));
            }
            exchange.sendResponseHeaders(200, -1);
            exchange.close();
        });
        server.setExecutor(Executors.newSingleThreadExecutor());
        server.start();
    }

    String endpoint() {
        return "http://127.0.0.1:" + server.getAddress().getPort();
    }

    List<Request> requests(String path) {
        synchronized (requests) {
            return requests.stream().filter(r -> r.path().equals(path)).toList();
        }
    }

    @Override
    public void close() {
        server.stop(0);
    }
}
