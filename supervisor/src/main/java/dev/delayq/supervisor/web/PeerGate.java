package dev.delayq.supervisor.web;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The web port's front door when it is bound elsewhere than loopback: each peer address holds at
 * most {@link #MAX_PER_PEER} connections, so one host that opens connections and stalls them
 * cannot take the {@link SlowClientLimits#MAX_CONNECTIONS} the port has from everyone else.
 *
 * <p>The JDK's HttpServer accepts on its own and shows a request's peer only once its headers are
 * read, which is too late: the stalled connections are the ones that never finish them. So the
 * server listens on an ephemeral loopback port, and this gate accepts on the configured one,
 * counts each peer's connections, closes one over its peer's share at once, and copies the bytes
 * of the others both ways. The server's deadlines still apply: when it closes a connection the
 * gate closes the client's. On loopback every client is 127.0.0.1, so a share per address would
 * be the whole port: there the gate is not used and the total cap alone applies.
 */
final class PeerGate implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(PeerGate.class);

  /** Connections one peer address may hold: a few browser tabs (six each) and a scraper. */
  static final int MAX_PER_PEER = 32;
  /** A copying thread's stack: it only moves a buffer between two sockets. */
  private static final long PUMP_STACK_BYTES = 256 * 1024;

  private final ServerSocket listener;
  private final InetSocketAddress server;
  private final Thread acceptor;
  /** Open connections per peer, and the peers told about once while they are at their share. */
  private final Map<InetAddress, Integer> held = new HashMap<>();
  private final Set<InetAddress> refusedSaid = new HashSet<>();
  private final AtomicInteger pumps = new AtomicInteger();
  private volatile boolean closed;

  private PeerGate(ServerSocket listener, InetSocketAddress server) {
    this.listener = listener;
    this.server = server;
    this.acceptor = new Thread(this::acceptLoop, "web-gate");
    acceptor.setDaemon(true);
  }

  /** Listens on {@code front} and passes each peer's share of connections on to {@code server}. */
  static PeerGate open(InetSocketAddress front, int backlog, InetSocketAddress server) throws IOException {
    ServerSocket listener = new ServerSocket();
    try {
      listener.setReuseAddress(true);
      listener.bind(front, backlog);
    } catch (IOException e) {
      listener.close();
      throw e;
    }
    PeerGate gate = new PeerGate(listener, server);
    gate.acceptor.start();
    return gate;
  }

  int port() {
    return listener.getLocalPort();
  }

  private void acceptLoop() {
    while (!closed) {
      Socket client;
      try {
        client = listener.accept();
      } catch (IOException e) {
        if (!closed) {
          // out of file descriptors, say: wait a moment rather than spin on the same failure
          log.warn("web: accepting a connection failed: {}", e.toString());
          sleepQuietly(100);
        }
        continue;
      }
      InetAddress peer = client.getInetAddress();
      if (!take(peer)) {
        closeQuietly(client);
        continue;
      }
      Socket backend = new Socket();
      try {
        backend.connect(server, 1_000);
      } catch (IOException e) {
        closeQuietly(backend);
        closeQuietly(client);
        release(peer);
        continue;
      }
      new Connection(peer, client, backend).start();
    }
  }

  private synchronized boolean take(InetAddress peer) {
    int n = held.getOrDefault(peer, 0);
    if (n >= MAX_PER_PEER) {
      if (refusedSaid.add(peer)) {
        log.warn("web: {} holds {} connections, its share of the port: more are closed at once until "
            + "it lets some go", peer.getHostAddress(), n);
      }
      return false;
    }
    held.put(peer, n + 1);
    return true;
  }

  private synchronized void release(InetAddress peer) {
    int n = held.getOrDefault(peer, 1) - 1;
    if (n <= 0) {
      held.remove(peer);
    } else {
      held.put(peer, n);
    }
    if (n < MAX_PER_PEER / 2 && refusedSaid.remove(peer)) {
      log.info("web: {} is under its share of connections again", peer.getHostAddress());
    }
  }

  /** Open connections of {@code peer} through the gate (for tests). */
  synchronized int held(InetAddress peer) {
    return held.getOrDefault(peer, 0);
  }

  /** Stops accepting; the connections under way end as the server closes them. */
  @Override
  public void close() {
    closed = true;
    closeQuietly(listener);
  }

  /**
   * One client's connection and the server's for it, copied both ways. When the client stops
   * sending, the server is told so and may still answer; when the server closes (an answer and no
   * keep-alive, a deadline, a stop), the whole connection ends, whatever the client does.
   */
  private final class Connection {
    private final InetAddress peer;
    private final Socket client;
    private final Socket backend;
    private final AtomicInteger ends = new AtomicInteger();

    Connection(InetAddress peer, Socket client, Socket backend) {
      this.peer = peer;
      this.client = client;
      this.backend = backend;
    }

    void start() {
      pump("in", client, backend, false);
      pump("out", backend, client, true);
    }

    private void pump(String way, Socket from, Socket to, boolean endsAll) {
      Thread t = new Thread(null, () -> {
        try {
          copy(from, to);
          if (endsAll) {
            closeBoth();
          } else {
            to.shutdownOutput();
          }
        } catch (IOException e) {
          closeBoth(); // a reset on either side ends the connection
        } finally {
          if (ends.incrementAndGet() == 2) {
            closeBoth();
            release(peer);
          }
        }
      }, "web-gate-" + way + "-" + pumps.incrementAndGet(), PUMP_STACK_BYTES);
      t.setDaemon(true);
      t.start();
    }

    private void closeBoth() {
      closeQuietly(client);
      closeQuietly(backend);
    }
  }

  private static void copy(Socket from, Socket to) throws IOException {
    InputStream in = from.getInputStream();
    OutputStream out = to.getOutputStream();
    byte[] buffer = new byte[8192];
    for (int n; (n = in.read(buffer)) >= 0; ) {
      out.write(buffer, 0, n);
      out.flush();
    }
  }

  private static void sleepQuietly(long ms) {
    try {
      Thread.sleep(ms);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  private static void closeQuietly(AutoCloseable c) {
    try {
      c.close();
    } catch (Exception ignored) {
      // closing: nothing more to do with it
    }
  }
}
