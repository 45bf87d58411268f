package io.sluice.app.metrics;

import com.sun.net.httpserver.HttpServer;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;

/** A Pushgateway's push endpoint on loopback: it accepts every push and keeps what arrived, in order. */
final class FakePushgateway implements AutoCloseable {
    record Push(String method, String path, String contentType, String body) {
    }

    private final HttpServer server;
    private final List<Push> pushes = new CopyOnWriteArrayList<>();

    FakePushgateway() throws IOException {
        server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        server.setExecutor(Executors.newSingleThreadExecutor(Thread.ofPlatform().daemon().factory()));
        server.createContext("/", exchange -> {
            String body = new String(exchange.getRequestBody().readAllBytes(), StandardCharsets.UTF_8);
            pushes.add(new Push(exchange.getRequestMethod(), exchange.getRequestURI().getPath(),
                    exchange.getRequestHeaders().getFirst("Content-Type"), body));
            exchange.sendResponseHeaders(200, -1);
            exchange.close();
        });
        server.start();
    }

    String address() {
        return "http://127.0.0.1:" + server.getAddress().getPort();
    }

    int port() {
        return server.getAddress().getPort();
    }

    List<Push> pushes() {
        return List.copyOf(pushes);
    }

    @Override
    public void close() {
        server.stop(0);
    }
}
