package dev.delayq.tracing;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.URL;
import java.net.URLClassLoader;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;

class TracingTest {
  /** The test classpath without OpenTelemetry, recording every attempt to load one of its classes. */
  static final class WithoutOpenTelemetry extends ClassLoader {
    final List<String> asked = new CopyOnWriteArrayList<>();

    WithoutOpenTelemetry() {
      super(TracingTest.class.getClassLoader());
    }

    @Override
    protected Class<?> loadClass(String name, boolean resolve) throws ClassNotFoundException {
      if (name.startsWith("io.opentelemetry.")) {
        asked.add(name);
        throw new ClassNotFoundException(name);
      }
      if (name.startsWith("dev.delayq.")) {
        throw new ClassNotFoundException(name);  // the child below loads delayq's own classes afresh
      }
      return super.loadClass(name, resolve);
    }
  }

  @Test
  void withoutOpenTelemetryOnTheClasspathTracingIsANoOpThatLoadsNoneOfItsClasses() throws Exception {
    WithoutOpenTelemetry parent = new WithoutOpenTelemetry();
    URL classes = Tracing.class.getProtectionDomain().getCodeSource().getLocation();
    try (URLClassLoader delayq = new URLClassLoader(new URL[] {classes}, parent)) {
      Class<?> tracing = delayq.loadClass(Tracing.class.getName());
      Object detected = tracing.getMethod("get").invoke(null);
      Map<String, String> headers = new HashMap<>();
      tracing.getMethod("inject", Map.class).invoke(detected, headers);

      assertFalse((Boolean) tracing.getMethod("enabled").invoke(detected));
      assertEquals(Map.of(), headers);
      assertEquals(List.of("io.opentelemetry.api.GlobalOpenTelemetry"), parent.asked,
          "one look for the API, and no OpenTelemetry class loaded");
    }
  }

  @Test
  void withOpenTelemetryOnTheClasspathItIsUsed() {
    assertTrue(Tracing.get().enabled());
  }

  @Test
  void outsideAnySpanNothingIsWrittenIntoTheHeaders() {
    Map<String, String> headers = new HashMap<>();
    Tracing.get().inject(headers);
    assertEquals(Map.of(), headers);
  }
}
