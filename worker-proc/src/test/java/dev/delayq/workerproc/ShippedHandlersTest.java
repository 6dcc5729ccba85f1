package dev.delayq.workerproc;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.delayq.testing.HandlerJar;
import dev.delayq.worker.HandlerRegistry;
import dev.delayq.worker.testjobs.EchoHandler;
import dev.delayq.workerproc.handlers.NoopHandler;
import dev.delayq.workerproc.handlers.OrderCloseHandler;
import dev.delayq.workerproc.handlers.StockReleaseHandler;
import java.io.IOException;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The handlers worker-proc ships are found on its classpath, beside those of the jobs directory. */
class ShippedHandlersTest {
  @TempDir
  Path jobsDir;

  @Test
  void shippedHandlersAreFoundOnTheClasspath() {
    HandlerRegistry registry = HandlerRegistry.load(jobsDir.resolve("absent"));

    assertTrue(registry.find("order_close").orElseThrow() instanceof OrderCloseHandler);
    assertTrue(registry.find("stock_release").orElseThrow() instanceof StockReleaseHandler);
    assertTrue(registry.find("noop").orElseThrow() instanceof NoopHandler);
    assertEquals("noop, order_close, stock_release", registry.types());
  }

  @Test
  void aShippedHandlerBundledAgainInAJarIsNotAConflict() throws IOException {
    HandlerJar.write(jobsDir, "bundle.jar", NoopHandler.class, EchoHandler.class);

    HandlerRegistry registry = HandlerRegistry.load(jobsDir);

    assertTrue(registry.find("noop").orElseThrow() instanceof NoopHandler);
    assertTrue(registry.find("echo").isPresent());
    assertEquals("echo, noop, order_close, stock_release", registry.types());
  }
}
