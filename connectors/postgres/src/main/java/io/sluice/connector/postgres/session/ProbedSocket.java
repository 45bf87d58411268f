package io.sluice.connector.postgres.session;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.Socket;
import java.net.SocketAddress;
import java.net.SocketException;
import java.net.SocketOption;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.util.Set;

/**
 * A client socket that can tell, without a round trip, whether its server has said anything since the last exchange:
 * {@link #probe} reads what is there without waiting, and hands any byte it read to the next reader. PgJDBC talks
 * through it like any socket ({@link ProbedSockets} makes them); a kept idle session is then checked by a probe
 * instead of {@code isValid}'s empty query, which cost a round trip on every lease (27 of a small table's 110).
 *
 * <p>A server that ends a session says so (the FATAL message of a restart, a terminate or an idle timeout) and closes
 * the socket; a backend killed outright has its socket closed by the kernel: either shows as bytes or end of stream.
 * Only a host gone without a word looks quiet, and the next statement then fails as it would have after a check.
 */
final class ProbedSocket extends Socket {
    /** What a probe saw on an idle session's socket. */
    enum Probe {
        /** Nothing came: the session is as it was left. */
        QUIET,
        /** The server sent something unasked (an error before it ended the session, a notice): ask it properly. */
        SPOKE,
        /** The server closed the socket. */
        CLOSED
    }

    private final SocketChannel channel;
    private final Socket socket;
    /** Bytes a probe read, which the next read returns first (at most one: a probe reads one). */
    private final ByteBuffer probed = ByteBuffer.allocate(1).flip();
    private InputStream input;

    ProbedSocket() throws IOException {
        channel = SocketChannel.open();
        socket = channel.socket();
    }

    /**
     * Reads what waits on the socket without waiting: only while no one else uses the connection (a session kept
     * idle between leases).
     */
    Probe probe() {
        if (probed.hasRemaining()) {
            return Probe.SPOKE;
        }
        try {
            channel.configureBlocking(false);
            try {
                probed.clear();
                int n = channel.read(probed);
                probed.flip();
                return n < 0 ? Probe.CLOSED : n == 0 ? Probe.QUIET : Probe.SPOKE;
            } finally {
                channel.configureBlocking(true);
            }
        } catch (IOException | RuntimeException e) {
            return Probe.CLOSED;
        }
    }

    @Override
    public synchronized InputStream getInputStream() throws IOException {
        if (input == null) {
            InputStream in = socket.getInputStream();
            input = new InputStream() {
                @Override
                public int read() throws IOException {
                    return probed.hasRemaining() ? probed.get() & 0xff : in.read();
                }

                @Override
                public int read(byte[] b, int off, int len) throws IOException {
                    if (len > 0 && probed.hasRemaining()) {
                        int n = Math.min(len, probed.remaining());
                        probed.get(b, off, n);
                        return n;
                    }
                    return in.read(b, off, len);
                }

                @Override
                public int available() throws IOException {
                    return probed.remaining() + in.available();
                }

                @Override
                public void close() throws IOException {
                    in.close();
                }
            };
        }
        return input;
    }

    // Everything else is the channel's socket's.

    @Override
    public void connect(SocketAddress endpoint) throws IOException {
        socket.connect(endpoint);
    }

    @Override
    public void connect(SocketAddress endpoint, int timeout) throws IOException {
        socket.connect(endpoint, timeout);
    }

    @Override
    public void bind(SocketAddress bindpoint) throws IOException {
        socket.bind(bindpoint);
    }

    @Override
    public OutputStream getOutputStream() throws IOException {
        return socket.getOutputStream();
    }

    @Override
    public InetAddress getInetAddress() {
        return socket.getInetAddress();
    }

    @Override
    public InetAddress getLocalAddress() {
        return socket.getLocalAddress();
    }

    @Override
    public int getPort() {
        return socket.getPort();
    }

    @Override
    public int getLocalPort() {
        return socket.getLocalPort();
    }

    @Override
    public SocketAddress getRemoteSocketAddress() {
        return socket.getRemoteSocketAddress();
    }

    @Override
    public SocketAddress getLocalSocketAddress() {
        return socket.getLocalSocketAddress();
    }

    @Override
    public void setTcpNoDelay(boolean on) throws SocketException {
        socket.setTcpNoDelay(on);
    }

    @Override
    public boolean getTcpNoDelay() throws SocketException {
        return socket.getTcpNoDelay();
    }

    @Override
    public void setSoLinger(boolean on, int linger) throws SocketException {
        socket.setSoLinger(on, linger);
    }

    @Override
    public int getSoLinger() throws SocketException {
        return socket.getSoLinger();
    }

    @Override
    public void sendUrgentData(int data) throws IOException {
        socket.sendUrgentData(data);
    }

    @Override
    public void setOOBInline(boolean on) throws SocketException {
        socket.setOOBInline(on);
    }

    @Override
    public boolean getOOBInline() throws SocketException {
        return socket.getOOBInline();
    }

    @Override
    public void setSoTimeout(int timeout) throws SocketException {
        socket.setSoTimeout(timeout);
    }

    @Override
    public int getSoTimeout() throws SocketException {
        return socket.getSoTimeout();
    }

    @Override
    public void setSendBufferSize(int size) throws SocketException {
        socket.setSendBufferSize(size);
    }

    @Override
    public int getSendBufferSize() throws SocketException {
        return socket.getSendBufferSize();
    }

    @Override
    public void setReceiveBufferSize(int size) throws SocketException {
        socket.setReceiveBufferSize(size);
    }

    @Override
    public int getReceiveBufferSize() throws SocketException {
        return socket.getReceiveBufferSize();
    }

    @Override
    public void setKeepAlive(boolean on) throws SocketException {
        socket.setKeepAlive(on);
    }

    @Override
    public boolean getKeepAlive() throws SocketException {
        return socket.getKeepAlive();
    }

    @Override
    public void setTrafficClass(int tc) throws SocketException {
        socket.setTrafficClass(tc);
    }

    @Override
    public int getTrafficClass() throws SocketException {
        return socket.getTrafficClass();
    }

    @Override
    public void setReuseAddress(boolean on) throws SocketException {
        socket.setReuseAddress(on);
    }

    @Override
    public boolean getReuseAddress() throws SocketException {
        return socket.getReuseAddress();
    }

    @Override
    public <T> Socket setOption(SocketOption<T> name, T value) throws IOException {
        socket.setOption(name, value);
        return this;
    }

    @Override
    public <T> T getOption(SocketOption<T> name) throws IOException {
        return socket.getOption(name);
    }

    @Override
    public Set<SocketOption<?>> supportedOptions() {
        return socket.supportedOptions();
    }

    @Override
    public void close() throws IOException {
        socket.close();
    }

    @Override
    public void shutdownInput() throws IOException {
        socket.shutdownInput();
    }

    @Override
    public void shutdownOutput() throws IOException {
        socket.shutdownOutput();
    }

    @Override
    public boolean isConnected() {
        return socket.isConnected();
    }

    @Override
    public boolean isBound() {
        return socket.isBound();
    }

    @Override
    public boolean isClosed() {
        return socket.isClosed();
    }

    @Override
    public boolean isInputShutdown() {
        return socket.isInputShutdown();
    }

    @Override
    public boolean isOutputShutdown() {
        return socket.isOutputShutdown();
    }

    @Override
    public void setPerformancePreferences(int connectionTime, int latency, int bandwidth) {
        socket.setPerformancePreferences(connectionTime, latency, bandwidth);
    }

    @Override
    public String toString() {
        return socket.toString();
    }
}
