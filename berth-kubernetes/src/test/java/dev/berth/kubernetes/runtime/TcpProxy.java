package dev.berth.kubernetes.runtime;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * A loopback TCP relay to one port that can be cut: {@link #cut} resets every relayed connection
 * and refuses new ones (accepts and closes them at once) until {@link #restore}. A client that
 * talks to the API server through it loses contact as in a partition where the server resets
 * connections, while everyone connected directly goes on.
 */
final class TcpProxy implements AutoCloseable {
  private final ServerSocket listener;
  private final int targetPort;
  private final Set<Socket> open = ConcurrentHashMap.newKeySet();
  private volatile boolean cut;

  TcpProxy(int targetPort) throws IOException {
    this.targetPort = targetPort;
    this.listener = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
    Thread.ofVirtual().name("tcp-proxy-accept").start(this::accept);
  }

  int port() {
    return listener.getLocalPort();
  }

  void cut() {
    cut = true;
    for (Socket socket : open) {
      close(socket);
    }
  }

  void restore() {
    cut = false;
  }

  private void accept() {
    while (!listener.isClosed()) {
      try {
        Socket client = listener.accept();
        if (cut) {
          client.setSoLinger(true, 0);
          client.close();
          continue;
        }
        Socket server = new Socket(InetAddress.getLoopbackAddress(), targetPort);
        open.add(client);
        open.add(server);
        Thread.ofVirtual().start(() -> relay(client, server));
        Thread.ofVirtual().start(() -> relay(server, client));
      } catch (IOException e) {
        if (!listener.isClosed()) {
          throw new UncheckedIOException(e);
        }
      }
    }
  }

  private void relay(Socket from, Socket to) {
    try (InputStream in = from.getInputStream();
        OutputStream out = to.getOutputStream()) {
      in.transferTo(out);
    } catch (IOException e) {
      // One side went away: the other follows below.
    } finally {
      close(from);
      close(to);
    }
  }

  private void close(Socket socket) {
    open.remove(socket);
    try {
      socket.setSoLinger(true, 0);
      socket.close();
    } catch (IOException e) {
      // Already closed.
    }
  }

  @Override
  public void close() throws IOException {
    listener.close();
    cut();
  }
}
