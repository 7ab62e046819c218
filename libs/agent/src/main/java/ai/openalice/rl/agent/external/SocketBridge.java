package ai.openalice.rl.agent.external;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * A Unix socket whose connections are carried to a TCP port of this host's loopback: how a sandbox
 * without a network reaches the {@link AgentEndpoint}. The socket file is mounted into the sandbox,
 * where a forwarder on the sandbox's own loopback connects to it (socat), so that the program sees
 * an ordinary {@code http://127.0.0.1:PORT}; nothing else of the host's network is reachable. One
 * virtual thread per direction of each connection.
 */
public final class SocketBridge implements AutoCloseable {
    private final Path socket;
    private final int port;
    private final ServerSocketChannel server;
    private final Thread acceptor;

    private SocketBridge(Path socket, int port, ServerSocketChannel server) {
        this.socket = socket;
        this.port = port;
        this.server = server;
        this.acceptor = Thread.ofVirtual().name("socket-bridge-" + socket.getFileName()).start(this::accept);
    }

    /** Listens on {@code socket} (a new file, readable and writable by every user: the sandbox's user connects to it). */
    public static SocketBridge open(Path socket, int port) throws IOException {
        Files.deleteIfExists(socket);
        var server = ServerSocketChannel.open(StandardProtocolFamily.UNIX);
        server.bind(UnixDomainSocketAddress.of(socket));
        socket.toFile().setWritable(true, false);
        socket.toFile().setReadable(true, false);
        return new SocketBridge(socket, port, server);
    }

    public Path socket() {
        return socket;
    }

    private void accept() {
        while (server.isOpen()) {
            SocketChannel in;
            try {
                in = server.accept();
            } catch (ClosedChannelException e) {
                return;
            } catch (IOException e) {
                continue;
            }
            Thread.ofVirtual().start(() -> relay(in));
        }
    }

    private void relay(SocketChannel in) {
        try (in; SocketChannel out = SocketChannel.open(new InetSocketAddress(InetAddress.getLoopbackAddress(), port))) {
            Thread back = Thread.ofVirtual().start(() -> copy(out, in));
            copy(in, out);
            back.join();
        } catch (IOException e) {
            // the endpoint is gone or the program hung up: the connection ends
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** Copies until {@code from} ends, then ends the writing side of {@code to}. */
    private static void copy(SocketChannel from, SocketChannel to) {
        var buf = ByteBuffer.allocate(64 * 1024);
        try {
            while (from.read(buf) >= 0) {
                buf.flip();
                while (buf.hasRemaining()) {
                    to.write(buf);
                }
                buf.clear();
            }
            to.shutdownOutput();
        } catch (IOException e) {
            // either side closed
        }
    }

    @Override
    public void close() throws IOException {
        server.close();
        acceptor.interrupt();
        Files.deleteIfExists(socket);
    }
}
