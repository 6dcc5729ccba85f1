package dev.delayq.supervisor.testjobs;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.jar.JarEntry;
import java.util.jar.JarOutputStream;

/**
 * Writes {@code <home>/jobs/test-jobs.jar} holding {@link SleepHandler} and {@link FlakyHandler}
 * with their ServiceLoader entry: the way an operator adds a job type, used here to give the real
 * workers a slow job and one that fails until told otherwise.
 */
public final class JobsJar {
  private JobsJar() {}

  public static Path install(Path home) throws IOException {
    Path jar = home.resolve("jobs").resolve("test-jobs.jar");
    Files.createDirectories(jar.getParent());
    List<Class<?>> handlers = List.of(SleepHandler.class, FlakyHandler.class);
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
      out.putNextEntry(new JarEntry("META-INF/services/dev.delayq.job.JobHandler"));
      out.write(services.toString().getBytes(StandardCharsets.UTF_8));
      out.closeEntry();
    }
    return jar;
  }
}
