package dev.delayq.supervisor;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.SocketException;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.channels.Channels;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Timer;
import java.util.TimerTask;
import java.util.function.Consumer;

/** The operator side of the control socket: one request, its progress lines, its answer. */
final class ControlClient {

  /** Nothing answers on the socket. */
  static final class NotRunningException extends Exception {
    NotRunningException(String message) {
      super(message);
    }
  }

  private final Path socket;

  ControlClient(Path socket) {
    this.socket = socket;
  }

  /**
   * Sends {@code request} and returns the final answer; each progress line goes to
   * {@code progress}. Gives up (IOException) when no answer came within {@code timeout}.
   */
  JsonNode request(Object request, Consumer<String> progress, Duration timeout)
      throws NotRunningException, IOException {
    if (!Files.exists(socket)) {
      throw new NotRunningException("delayq supervisor is not running (no control socket " + socket + ")");
    }
    SocketChannel channel;
    try {
      channel = SocketChannel.open(StandardProtocolFamily.UNIX);
      channel.connect(UnixDomainSocketAddress.of(socket));
    } catch (SocketException e) {
      throw new NotRunningException("delayq supervisor is not running (stale control socket " + socket
          + ": " + e.getMessage() + ")");
    }
    Timer timer = new Timer("control-client-timeout", true);
    timer.schedule(new TimerTask() {
      @Override
      public void run() {
        try {
          channel.close();
        } catch (IOException ignored) {
          // closing is the point
        }
      }
    }, timeout.toMillis());
    try (channel) {
      Channels.newOutputStream(channel).write((Protocol.JSON.writeValueAsString(request) + "\n")
          .getBytes(StandardCharsets.UTF_8));
      BufferedReader in = new BufferedReader(new InputStreamReader(Channels.newInputStream(channel),
          StandardCharsets.UTF_8));
      String line;
      while ((line = in.readLine()) != null) {
        JsonNode node = Protocol.JSON.readTree(line);
        if (node.has("progress")) {
          progress.accept(node.get("progress").asText());
        } else {
          return node;
        }
      }
      throw new IOException("the supervisor closed the connection without an answer");
    } catch (IOException e) {
      if (!channel.isOpen()) {
        throw new IOException("no answer from the supervisor within " + timeout.toSeconds() + "s", e);
      }
      throw e;
    } finally {
      timer.cancel();
    }
  }
}
