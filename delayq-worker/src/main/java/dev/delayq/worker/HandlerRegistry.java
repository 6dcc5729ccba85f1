package dev.delayq.worker;

import dev.delayq.config.JobTypes;
import dev.delayq.job.JobHandler;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.MalformedURLException;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.ServiceConfigurationError;
import java.util.ServiceLoader;
import java.util.TreeMap;
import java.util.stream.Stream;

/**
 * The job handlers this worker can run, by type: every {@link JobHandler} that
 * {@link ServiceLoader} finds on the classpath and in the jars of the jobs directory. Adding a
 * job type is dropping a jar there; no config names types.
 */
public final class HandlerRegistry {

  private final Map<String, JobHandler> byType;

  private HandlerRegistry(Map<String, JobHandler> byType) {
    this.byType = byType;
  }

  /**
   * Loads the handlers; two handlers of one type, a malformed type, or a jar naming a class it
   * cannot load stop start-up with an IllegalStateException saying which.
   */
  public static HandlerRegistry load(Path jobsDir) {
    return load(jobsDir, HandlerRegistry.class.getClassLoader());
  }

  static HandlerRegistry load(Path jobsDir, ClassLoader parent) {
    try {
      return loadAll(jarLoader(jobsDir, parent));
    } catch (ServiceConfigurationError e) {
      throw new IllegalStateException("cannot load the job handlers (classpath and " + jobsDir
          + "): " + e.getMessage(), e);
    }
  }

  /**
   * The handlers an application hands over (Spring beans, a test's handlers) instead of the
   * classpath and a jobs directory, with the same checks: a malformed type, or two handlers of
   * one type, is an IllegalStateException saying which.
   */
  static HandlerRegistry of(Collection<? extends JobHandler> handlers) {
    Map<String, JobHandler> found = new TreeMap<>();
    for (JobHandler h : handlers) {
      JobHandler before = found.putIfAbsent(checkedType(h), h);
      if (before != null && before != h) {
        throw new IllegalStateException("job type '" + h.type() + "' has two handlers: "
            + before.getClass().getName() + " and " + h.getClass().getName());
      }
    }
    return new HandlerRegistry(found);
  }

  private static String checkedType(JobHandler h) {
    String type = h.type();
    if (!JobTypes.isValid(type)) {
      throw new IllegalStateException(h.getClass().getName() + " declares job type '" + type
          + "', which does not match [a-z0-9_.:-]{1,64}");
    }
    return type;
  }

  private static HandlerRegistry loadAll(ClassLoader loader) {
    Map<String, JobHandler> found = new TreeMap<>();
    for (JobHandler h : ServiceLoader.load(JobHandler.class, loader)) {
      String type = checkedType(h);
      JobHandler before = found.putIfAbsent(type, h);
      if (before != null && before.getClass() != h.getClass()) {
        throw new IllegalStateException("job type '" + type + "' has two handlers: "
            + before.getClass().getName() + " and " + h.getClass().getName());
      }
    }
    return new HandlerRegistry(found);
  }

  private static ClassLoader jarLoader(Path jobsDir, ClassLoader parent) {
    if (!Files.isDirectory(jobsDir)) {
      return parent;
    }
    List<URL> jars = new ArrayList<>();
    try (Stream<Path> files = Files.list(jobsDir)) {
      for (Path p : (Iterable<Path>) files.filter(f -> f.toString().endsWith(".jar")).sorted()::iterator) {
        jars.add(p.toUri().toURL());
      }
    } catch (MalformedURLException e) {
      throw new IllegalStateException(e);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot list the jobs directory " + jobsDir, e);
    }
    return jars.isEmpty() ? parent : new URLClassLoader(jars.toArray(URL[]::new), parent);
  }

  public Optional<JobHandler> find(String type) {
    return Optional.ofNullable(byType.get(type));
  }

  /** The known types, sorted. */
  java.util.List<String> typeList() {
    return java.util.List.copyOf(byType.keySet());
  }

  /** The known types, sorted, for log lines and error messages. */
  public String types() {
    return String.join(", ", byType.keySet());
  }
}
