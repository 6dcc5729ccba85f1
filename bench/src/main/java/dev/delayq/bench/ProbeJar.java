package dev.delayq.bench;

import java.io.IOException;
import java.io.OutputStream;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.jar.JarEntry;
import java.util.jar.JarOutputStream;

/**
 * Puts the bench_probe handler into a worker's jobs directory, the way users add job types:
 * the bench's own jar when it runs from one, else (in the build's tests) a jar made from the
 * compiled probe classes and its ServiceLoader entry.
 */
final class ProbeJar {
  private ProbeJar() {}

  static void writeTo(Path target) throws IOException {
    Path self;
    try {
      self = Path.of(ProbeJar.class.getProtectionDomain().getCodeSource().getLocation().toURI());
    } catch (URISyntaxException e) {
      throw new IOException(e);
    }
    if (Files.isRegularFile(self)) {
      Files.copy(self, target, StandardCopyOption.REPLACE_EXISTING);
      return;
    }
    try (OutputStream file = Files.newOutputStream(target);
        JarOutputStream jar = new JarOutputStream(file)) {
      for (Class<?> c : new Class<?>[] {LatenessProbe.class, ProbeStamps.class}) {
        String cls = c.getName().replace('.', '/') + ".class";
        jar.putNextEntry(new JarEntry(cls));
        jar.write(Files.readAllBytes(self.resolve(cls)));
        jar.closeEntry();
      }
      jar.putNextEntry(new JarEntry("META-INF/services/dev.delayq.job.JobHandler"));
      jar.write((LatenessProbe.class.getName() + "\n").getBytes(StandardCharsets.UTF_8));
      jar.closeEntry();
    }
  }
}
