package dev.delayq.supervisor.control;

import com.fasterxml.jackson.databind.JsonNode;
import dev.delayq.supervisor.host.ThisUser;
import dev.delayq.supervisor.host.UntrustedPathException;
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
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFileAttributes;
import java.time.Duration;
import java.util.Timer;
import java.util.TimerTask;
import java.util.function.Consumer;
import jdk.net.ExtendedSocketOptions;
import jdk.net.UnixDomainPrincipal;

/**
 * The operator side of the control socket: one request, its progress lines, its answer. It talks
 * only to a socket this user owns, served by a process of this user's: a socket another user
 * planted in run/ could otherwise answer {@code stop} with "stopped" while the real supervisor runs.
 */
public final class ControlClient {

  /** Nothing answers on the socket. */
  public static final class NotRunningException extends Exception {
    public NotRunningException(String message) {
      super(message);
    }
  }

  private final Path socket;

  public ControlClient(Path socket) {
    this.socket = socket;
  }

  /**
   * The socket file itself (not followed) must be a socket this user owns: only this user's
   * process could have bound it, in a directory only this user can write.
   */
  private void requireOwnSocket(PosixFileAttributes file) throws IOException {
    if (file.isSymbolicLink()) {
      throw untrusted("it is a symbolic link (to " + Files.readSymbolicLink(socket) + ")");
    }
    if (!file.isOther()) {
      throw untrusted("it is not a socket");
    }
    if (!ThisUser.owns(file)) {
      throw untrusted("it belongs to " + file.owner().getName() + ", not to "
          + ThisUser.name());
    }
  }

  /**
   * The socket is not one this user's supervisor bound (a link, not a socket, another user's file
   * or listener); nothing is sent to it.
   */
  private UntrustedPathException untrusted(String why) {
    return new UntrustedPathException("refusing to talk to " + socket + ": " + why + ". A supervisor of "
        + ThisUser.name() + " would have bound it itself; another user may have planted it, so nothing it says is "
        + "believed. Check who runs a supervisor on this home (ps), stop it as that user, and remove the file");
  }

  /**
   * The process listening on it must run as this user (SO_PEERCRED, the kernel's word): covers a
   * file swapped between the check above and the connect.
   */
  private void requireOwnPeer(SocketChannel channel) throws IOException {
    UnixDomainPrincipal peer = channel.getOption(ExtendedSocketOptions.SO_PEERCRED);
    if (!ThisUser.is(peer.user())) {
      throw untrusted("the process listening on it runs as " + peer.user().getName()
          + ", not as " + ThisUser.name());
    }
  }

  /**
   * Sends {@code request} and returns the final answer; each progress line goes to
   * {@code progress}. Gives up (IOException) when no answer came within {@code timeout}.
   */
  public JsonNode request(Object request, Consumer<String> progress, Duration timeout)
      throws NotRunningException, IOException {
    PosixFileAttributes file;
    try {
      file = ThisUser.lstat(socket);
    } catch (NoSuchFileException e) {
      throw new NotRunningException("delayq supervisor is not running (no control socket " + socket + ")");
    }
    requireOwnSocket(file);
    SocketChannel channel;
    try {
      channel = SocketChannel.open(StandardProtocolFamily.UNIX);
      channel.connect(UnixDomainSocketAddress.of(socket));
    } catch (SocketException e) {
      throw new NotRunningException("delayq supervisor is not running (stale control socket " + socket
          + ": " + e.getMessage() + ")");
    }
    try {
      requireOwnPeer(channel);
    } catch (IOException | RuntimeException e) {
      channel.close();
      throw e;
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
