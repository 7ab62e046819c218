package ai.openalice.rl.e2e;

import java.io.Closeable;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * A TCP relay in front of a shared server (the machine's PostgreSQL), so that a test can take the
 * server away from one service — {@link #cut()} closes the listener and every connection through
 * it, as a crashed or restarted server does — and give it back on the same port with
 * {@link #open()}, without touching what other tests use.
 */
final class TcpProxy implements AutoCloseable {
    private final int port;
    private final String targetHost;
    private final int targetPort;
    private final List<Socket> sockets = new CopyOnWriteArrayList<>();
    private volatile ServerSocket server;

    TcpProxy(int port, String targetHost, int targetPort) {
        this.port = port;
        this.targetHost = targetHost;
        this.targetPort = targetPort;
    }

    int port() {
        return port;
    }

    synchronized void open() throws IOException {
        var s = new ServerSocket();
        s.setReuseAddress(true);
        s.bind(new InetSocketAddress("127.0.0.1", port));
        server = s;
        Thread.ofVirtual().start(() -> accept(s));
    }

    private void accept(ServerSocket s) {
        while (!s.isClosed()) {
            try {
                Socket client = s.accept();
                Socket upstream = new Socket(targetHost, targetPort);
                sockets.add(client);
                sockets.add(upstream);
                Thread.ofVirtual().start(() -> pump(client, upstream));
                Thread.ofVirtual().start(() -> pump(upstream, client));
            } catch (IOException closed) {
                return;
            }
        }
    }

    private static void pump(Socket from, Socket to) {
        try (InputStream in = from.getInputStream(); OutputStream out = to.getOutputStream()) {
            in.transferTo(out);
        } catch (IOException cut) {
            // the other side or cut() closed it
        } finally {
            close(from);
            close(to);
        }
    }

    /** Closes the listener and every relayed connection: new connections are refused, open ones reset. */
    synchronized void cut() {
        if (server != null) {
            close(server);
            server = null;
        }
        for (Socket s : sockets) {
            close(s);
        }
        sockets.clear();
    }

    @Override
    public void close() {
        cut();
    }

    private static void close(Closeable c) {
        try {
            c.close();
        } catch (IOException ignored) {
            // already closed
        }
    }
}
