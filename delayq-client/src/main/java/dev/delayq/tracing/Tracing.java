package dev.delayq.tracing;

import java.util.Map;
import java.util.concurrent.Callable;

/**
 * Trace context across the delay: a producer writes the W3C {@code traceparent} of the span it
 * enqueues in into the job's headers, and the worker runs the handler in a consumer span
 * <em>linked</em> to that span (a delay can be hours, so the run is not a child of the request
 * that enqueued it). This is OpenTelemetry when its API is on the classpath, and does nothing
 * otherwise: no OpenTelemetry class is loaded then.
 */
public abstract class Tracing {
  private static final String OTEL_PROBE = "io.opentelemetry.api.GlobalOpenTelemetry";
  private static final String OTEL_TRACING = "dev.delayq.tracing.OtelTracing";
  private static final Tracing DETECTED = detect(Tracing.class.getClassLoader());

  /** What the consumer span records of one run. */
  public record Run(String queue, String jobId, String type, int attempt, Map<String, String> headers) {}

  /** The handler's run, inside the consumer span. */
  public interface Body<T> {
    T call() throws Exception;
  }

  /** OpenTelemetry when its API was found at class-loading time, else the no-op. */
  public static Tracing get() {
    return DETECTED;
  }

  /** The no-op, whatever is on the classpath: for runs that are not jobs (a worker's warm-up). */
  public static Tracing none() {
    return None.INSTANCE;
  }

  static Tracing detect(ClassLoader loader) {
    try {
      Class.forName(OTEL_PROBE, false, loader);
    } catch (ClassNotFoundException | LinkageError absent) {
      return None.INSTANCE;
    }
    try {
      // by name, so that this class never links against OpenTelemetry itself
      return (Tracing) Class.forName(OTEL_TRACING, true, loader).getDeclaredConstructor().newInstance();
    } catch (ReflectiveOperationException | LinkageError e) {
      return None.INSTANCE;
    }
  }

  /** Adds the current span's {@code traceparent} (and {@code tracestate}) to {@code headers}. */
  public abstract void inject(Map<String, String> headers);

  /** Runs {@code body} in a consumer span linked to the producer's span named in the headers. */
  public abstract <T> T consume(Run run, Body<T> body) throws Exception;

  /** True for the OpenTelemetry implementation. */
  public abstract boolean enabled();

  static final class None extends Tracing {
    static final None INSTANCE = new None();

    @Override
    public void inject(Map<String, String> headers) {}

    @Override
    public <T> T consume(Run run, Body<T> body) throws Exception {
      return body.call();
    }

    @Override
    public boolean enabled() {
      return false;
    }
  }
}
