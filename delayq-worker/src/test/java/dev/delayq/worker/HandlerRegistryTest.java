package dev.delayq.worker;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.delayq.worker.testjobs.BadTypeHandler;
import dev.delayq.worker.testjobs.EchoHandler;
import dev.delayq.worker.testjobs.OtherEchoHandler;
import dev.delayq.testing.HandlerJar;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.jar.JarEntry;
import java.util.jar.JarOutputStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link HandlerRegistry#load}: handlers come from the classpath and from jars in the jobs
 * directory. The test handlers are compiled with the tests, but their ServiceLoader
 * entries exist only in the jars written here, so a type is found only when its jar is there.
 */
class HandlerRegistryTest {
  @TempDir
  Path jobsDir;

  private void writeJar(String name, Class<?>... handlers) throws IOException {
    HandlerJar.write(jobsDir, name, handlers);
  }

  @Test
  void unknownTypeIsNotFound() {
    HandlerRegistry registry = HandlerRegistry.load(jobsDir);

    assertFalse(registry.find("echo").isPresent(), "echo's entry exists only in a jar");
    assertFalse(registry.find("nobody_handles_this").isPresent());
  }

  @Test
  void aJarDroppedIntoTheJobsDirAddsItsType() throws IOException {
    writeJar("echo.jar", EchoHandler.class);
    Files.writeString(jobsDir.resolve("README.txt"), "not a jar; ignored");

    HandlerRegistry registry = HandlerRegistry.load(jobsDir);

    assertTrue(registry.find("echo").orElseThrow() instanceof EchoHandler);
    assertEquals("echo", registry.types());
  }

  @Test
  void twoHandlersOfOneTypeAreRefusedNamingBoth() throws IOException {
    writeJar("a-echo.jar", EchoHandler.class);
    writeJar("b-echo.jar", OtherEchoHandler.class);

    IllegalStateException e = assertThrows(IllegalStateException.class, () -> HandlerRegistry.load(jobsDir));

    assertTrue(e.getMessage().contains("'echo'"), e.getMessage());
    assertTrue(e.getMessage().contains(EchoHandler.class.getName()), e.getMessage());
    assertTrue(e.getMessage().contains(OtherEchoHandler.class.getName()), e.getMessage());
  }

  @Test
  void malformedTypeIsRefusedNamingTheClassAndTheType() throws IOException {
    writeJar("bad.jar", BadTypeHandler.class);

    IllegalStateException e = assertThrows(IllegalStateException.class, () -> HandlerRegistry.load(jobsDir));

    assertTrue(e.getMessage().contains(BadTypeHandler.class.getName()), e.getMessage());
    assertTrue(e.getMessage().contains("'Order Close!'"), e.getMessage());
  }

  @Test
  void jarNamingAMissingClassIsRefusedNamingIt() throws IOException {
    try (JarOutputStream out = new JarOutputStream(Files.newOutputStream(jobsDir.resolve("broken.jar")))) {
      out.putNextEntry(new JarEntry("META-INF/services/dev.delayq.job.JobHandler"));
      out.write("com.example.MissingHandler\n".getBytes(StandardCharsets.UTF_8));
      out.closeEntry();
    }

    // IllegalStateException is what WorkerMain refuses start-up with, logging its message
    IllegalStateException e = assertThrows(IllegalStateException.class, () -> HandlerRegistry.load(jobsDir));

    assertTrue(e.getMessage().contains("com.example.MissingHandler"), e.getMessage());
  }
}
