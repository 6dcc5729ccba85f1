package dev.delayq.supervisor.testjobs;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.jar.JarEntry;
import java.util.jar.JarOutputStream;

/**
 * Writes {@code <home>/jobs/test-jobs.jar} holding {@link SleepHandler} and its ServiceLoader
 * entry: the way an operator adds a job type, used here to give the real workers a slow job.
 */
public final class JobsJar {
  private JobsJar() {}

  public static Path install(Path home) throws IOException {
    Path jar = home.resolve("jobs").resolve("test-jobs.jar");
    Files.createDirectories(jar.getParent());
    String classFile = SleepHandler.class.getName().replace('.', '/') + ".class";
    try (OutputStream file = Files.newOutputStream(jar); JarOutputStream out = new JarOutputStream(file);
        InputStream in = SleepHandler.class.getClassLoader().getResourceAsStream(classFile)) {
      if (in == null) {
        throw new IOException(classFile + " is not on the test classpath");
      }
      out.putNextEntry(new JarEntry(classFile));
      in.transferTo(out);
      out.closeEntry();
      out.putNextEntry(new JarEntry("META-INF/services/dev.delayq.job.JobHandler"));
      out.write((SleepHandler.class.getName() + "\n").getBytes(StandardCharsets.UTF_8));
      out.closeEntry();
    }
    return jar;
  }
}
