package dev.delayq.supervisor;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;

/**
 * The program another user runs to pose as the supervisor: it binds the control socket's path
 * and answers every request as the supervisor would answer a successful one, then, after a
 * {@code stop}, exits, so a client that believes it reports "stopped". It is a single source
 * file (JDK classes only) that {@code java} runs as is, readable by that user.
 */
final class FakeSupervisor {
  private static final String SOURCE = """
      import java.net.StandardProtocolFamily;
      import java.net.UnixDomainSocketAddress;
      import java.nio.ByteBuffer;
      import java.nio.channels.ServerSocketChannel;
      import java.nio.channels.SocketChannel;
      import java.nio.file.Files;
      import java.nio.file.Path;

      public class Fake {
        public static void main(String[] args) throws Exception {
          Path socket = Path.of(args[0]);
          try (ServerSocketChannel server = ServerSocketChannel.open(StandardProtocolFamily.UNIX)) {
            server.bind(UnixDomainSocketAddress.of(socket));
            System.out.println("listening");
            while (true) {
              try (SocketChannel c = server.accept()) {
                ByteBuffer in = ByteBuffer.allocate(4096);
                c.read(in);
                String request = new String(in.array(), 0, in.position()).trim();
                System.out.println("request " + request);
                c.write(ByteBuffer.wrap(("{\\"ok\\":true,\\"pid\\":" + ProcessHandle.current().pid()
                    + ",\\"status\\":{\\"children\\":[]}}\\n").getBytes()));
                if (request.contains("\\"stop\\"")) {
                  Files.deleteIfExists(socket);
                  return;
                }
              }
            }
          }
        }
      }
      """;

  private FakeSupervisor() {}

  /** Writes the program into {@code dir} (made readable by all) and returns its path. */
  static Path source(Path dir) throws IOException {
    Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString("rwxr-xr-x"));
    Path file = dir.resolve("Fake.java");
    Files.writeString(file, SOURCE);
    Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rw-r--r--"));
    return file;
  }
}
