package dev.delayq.testing;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.jar.JarEntry;
import java.util.jar.JarOutputStream;

/**
 * Writes a jar into a jobs directory holding handler classes' files and a ServiceLoader entry
 * naming them, the way an operator adds a job type. The classes are also on the test classpath,
 * but their ServiceLoader entries exist only in such a jar.
 */
public final class HandlerJar {
  /** The job SPI's interface (dev.delayq.job.JobHandler, of delayq-client, a module above this one). */
  private static final String HANDLER_SPI = "dev.delayq.job.JobHandler";

  private HandlerJar() {}

  public static Path write(Path jobsDir, String name, Class<?>... handlers) throws IOException {
    Files.createDirectories(jobsDir);
    Path jar = jobsDir.resolve(name);
    try (OutputStream file = Files.newOutputStream(jar); JarOutputStream out = new JarOutputStream(file)) {
      StringBuilder services = new StringBuilder();
      for (Class<?> handler : handlers) {
        String classFile = handler.getName().replace('.', '/') + ".class";
        try (InputStream in = handler.getClassLoader().getResourceAsStream(classFile)) {
          if (in == null) {
            throw new IOException(classFile + " is not on the test classpath");
          }
          out.putNextEntry(new JarEntry(classFile));
          in.transferTo(out);
          out.closeEntry();
        }
        services.append(handler.getName()).append('\n');
      }
      out.putNextEntry(new JarEntry("META-INF/services/" + HANDLER_SPI));
      out.write(services.toString().getBytes(StandardCharsets.UTF_8));
      out.closeEntry();
    }
    return jar;
  }
}
