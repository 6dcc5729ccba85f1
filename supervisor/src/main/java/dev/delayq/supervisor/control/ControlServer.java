package dev.delayq.supervisor.control;

import com.fasterxml.jackson.databind.JsonNode;
import dev.delayq.supervisor.host.PrivateFile;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.channels.Channels;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The control socket {@code run/supervisor.sock}: a Unix domain socket only its owner can use
 * (mode 0600). Each connection gets a thread that reads one request line and hands it to
 * {@link ControlCommands}; these threads never touch the child table, they post events.
 */
public final class ControlServer implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(ControlServer.class);

  /** Where a request's answer lines go; safe to call from several threads. */
  interface Reply {
    void line(Object json);
  }

  /** Serves one decoded request. */
  interface Handler {
    void handle(JsonNode request, Reply reply);
  }

  private final Path socket;
  private final Handler handler;
  private final List<Thread> connections = new CopyOnWriteArrayList<>();
  private ServerSocketChannel server;
  private Thread acceptor;

  public ControlServer(Path socket, Handler handler) {
    this.socket = socket.toAbsolutePath();
    this.handler = handler;
  }

  /**
   * Binds the socket in a private (0700) directory, makes it 0600, then renames it into
   * place: no moment exists when another user could connect to it. A symbolic link at its name
   * is refused (the rename would replace the link, not follow it, but a link there is planted).
   */
  public void start() throws IOException {
    Path dir = socket.getParent();
    Files.createDirectories(dir);
    PrivateFile.refuseLink(socket);
    Path privateDir = Files.createTempDirectory(dir, ".sock-",
        PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
    Path bound = privateDir.resolve("s");
    server = ServerSocketChannel.open(StandardProtocolFamily.UNIX);
    try {
      server.bind(UnixDomainSocketAddress.of(bound));
      Files.setPosixFilePermissions(bound, PosixFilePermissions.fromString("rw-------"));
      Files.move(bound, socket, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
    } catch (IOException | RuntimeException e) {
      server.close();
      throw e;
    } finally {
      Files.deleteIfExists(bound);
      Files.deleteIfExists(privateDir);
    }
    acceptor = new Thread(this::acceptLoop, "control-socket");
    acceptor.setDaemon(true);
    acceptor.start();
  }

  private void acceptLoop() {
    while (server.isOpen()) {
      try {
        SocketChannel channel = server.accept();
        Thread t = new Thread(() -> serve(channel), "control-connection");
        t.setDaemon(true);
        connections.add(t);
        t.start();
      } catch (IOException e) {
        if (server.isOpen()) {
          log.warn("control socket: {}", e.toString());
        }
      }
    }
  }

  private void serve(SocketChannel channel) {
    try (channel) {
      BufferedReader in = new BufferedReader(new InputStreamReader(Channels.newInputStream(channel),
          StandardCharsets.UTF_8));
      OutputStream out = Channels.newOutputStream(channel);
      String line = in.readLine();
      if (line == null) {
        return;
      }
      Reply reply = json -> {
        synchronized (out) {
          try {
            out.write((Protocol.JSON.writeValueAsString(json) + "\n").getBytes(StandardCharsets.UTF_8));
            out.flush();
          } catch (IOException e) {
            // the client went away; the command still runs to its end
          }
        }
      };
      JsonNode request;
      try {
        request = Protocol.JSON.readTree(line);
      } catch (IOException e) {
        reply.line(ControlCommands.error("not a JSON request: " + e.getMessage()));
        return;
      }
      handler.handle(request, reply);
    } catch (IOException | RuntimeException e) {
      log.warn("control connection failed: {}", e.toString());
    } finally {
      connections.remove(Thread.currentThread());
    }
  }

  /** Stops accepting, lets running answers finish (up to 5 s), and removes the socket file. */
  @Override
  public void close() {
    try {
      if (server != null) {
        server.close();
      }
      for (Thread t : connections) {
        t.join(5000);
      }
      Files.deleteIfExists(socket);
    } catch (IOException e) {
      log.warn("cannot remove {}: {}", socket, e.toString());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
