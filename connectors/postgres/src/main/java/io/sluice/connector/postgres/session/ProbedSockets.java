package io.sluice.connector.postgres.session;

import java.io.IOException;
import java.net.InetAddress;
import java.net.Socket;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

import javax.net.SocketFactory;

import static java.util.Objects.requireNonNull;

/**
 * The socket factory PgJDBC makes each connection's socket with ({@code socketFactory}), so that the connection a
 * connect returns comes with its {@link ProbedSocket}. PgJDBC instantiates the factory by class name with the
 * connect's {@code socketFactoryArg}, here a ticket {@link #connect} hands out; any thread the driver connects on
 * (a login timeout connects on one of its own) finds it.
 */
public final class ProbedSockets extends SocketFactory {
    private static final AtomicLong TICKETS = new AtomicLong();
    /** The socket each connect in progress made last (a connect that retries makes a new one). */
    private static final Map<String, AtomicReference<ProbedSocket>> MADE = new ConcurrentHashMap<>();

    private final AtomicReference<ProbedSocket> made;

    /** Called by PgJDBC with the connect's ticket. */
    public ProbedSockets(String ticket) {
        AtomicReference<ProbedSocket> waiting = ticket == null ? null : MADE.get(ticket);
        this.made = waiting != null ? waiting : new AtomicReference<>();
    }

    /** What a connect made: the connection, and its socket when PgJDBC made it here. */
    record Connected<C>(C connection, ProbedSocket socket) {
    }

    /**
     * Connects to {@code url} with {@code properties} plus this factory, unless the user named a socket factory of
     * their own (in the properties or the URL, whose parameters PgJDBC lets win).
     */
    static <C, E extends Exception> Connected<C> connect(String url, Properties properties, Connect<C, E> connect)
            throws E {
        requireNonNull(url, "url is null");
        requireNonNull(properties, "properties is null");
        if (properties.getProperty("socketFactory") != null || url.contains("socketFactory")) {
            return new Connected<>(connect.with(properties), null);
        }
        String ticket = Long.toString(TICKETS.incrementAndGet());
        AtomicReference<ProbedSocket> made = new AtomicReference<>();
        MADE.put(ticket, made);
        try {
            Properties with = new Properties();
            with.putAll(properties);
            with.setProperty("socketFactory", ProbedSockets.class.getName());
            with.setProperty("socketFactoryArg", ticket);
            return new Connected<>(connect.with(with), made.get());
        } finally {
            MADE.remove(ticket);
        }
    }

    /** A connect given the properties to connect with. */
    @FunctionalInterface
    interface Connect<C, E extends Exception> {
        C with(Properties properties) throws E;
    }

    @Override
    public Socket createSocket() throws IOException {
        ProbedSocket socket = new ProbedSocket();
        made.set(socket);
        return socket;
    }

    // PgJDBC asks for an unconnected socket and connects it itself; the rest of the contract for completeness.

    @Override
    public Socket createSocket(String host, int port) throws IOException {
        Socket socket = createSocket();
        socket.connect(new java.net.InetSocketAddress(host, port));
        return socket;
    }

    @Override
    public Socket createSocket(String host, int port, InetAddress localHost, int localPort) throws IOException {
        Socket socket = createSocket();
        socket.bind(new java.net.InetSocketAddress(localHost, localPort));
        socket.connect(new java.net.InetSocketAddress(host, port));
        return socket;
    }

    @Override
    public Socket createSocket(InetAddress host, int port) throws IOException {
        Socket socket = createSocket();
        socket.connect(new java.net.InetSocketAddress(host, port));
        return socket;
    }

    @Override
    public Socket createSocket(InetAddress address, int port, InetAddress localAddress, int localPort)
            throws IOException {
        Socket socket = createSocket();
        socket.bind(new java.net.InetSocketAddress(localAddress, localPort));
        socket.connect(new java.net.InetSocketAddress(address, port));
        return socket;
    }
}
