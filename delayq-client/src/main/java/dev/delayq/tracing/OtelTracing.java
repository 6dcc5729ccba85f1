package dev.delayq.tracing;

import io.opentelemetry.api.GlobalOpenTelemetry;
import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanBuilder;
import io.opentelemetry.api.trace.SpanContext;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.api.trace.StatusCode;
import io.opentelemetry.api.trace.propagation.W3CTraceContextPropagator;
import io.opentelemetry.context.Context;
import io.opentelemetry.context.Scope;
import io.opentelemetry.context.propagation.TextMapGetter;
import java.util.Map;

/**
 * {@link Tracing} on the OpenTelemetry API: W3C trace context in the job's headers (whatever
 * propagators the app configured, the headers always carry {@code traceparent}), and a CONSUMER
 * span per run, with no parent and a link to the producer's span, named and attributed after
 * the messaging conventions. Loaded by name only when the API is on the classpath.
 */
final class OtelTracing extends Tracing {
  private static final W3CTraceContextPropagator W3C = W3CTraceContextPropagator.getInstance();
  private static final AttributeKey<String> SYSTEM = AttributeKey.stringKey("messaging.system");
  private static final AttributeKey<String> OPERATION = AttributeKey.stringKey("messaging.operation.type");
  private static final AttributeKey<String> DESTINATION = AttributeKey.stringKey("messaging.destination.name");
  private static final AttributeKey<String> MESSAGE_ID = AttributeKey.stringKey("messaging.message.id");
  private static final AttributeKey<String> JOB_TYPE = AttributeKey.stringKey("delayq.job.type");
  private static final AttributeKey<Long> ATTEMPT = AttributeKey.longKey("delayq.job.attempt");
  private static final TextMapGetter<Map<String, String>> HEADERS = new TextMapGetter<>() {
    @Override
    public Iterable<String> keys(Map<String, String> carrier) {
      return carrier.keySet();
    }

    @Override
    public String get(Map<String, String> carrier, String key) {
      return carrier == null ? null : carrier.get(key);
    }
  };

  @Override
  public void inject(Map<String, String> headers) {
    if (Span.current().getSpanContext().isValid()) {
      W3C.inject(Context.current(), headers, Map::put);
    }
  }

  @Override
  public <T> T consume(Run run, Body<T> body) throws Exception {
    SpanBuilder builder = GlobalOpenTelemetry.getTracer("dev.delayq")
        .spanBuilder("process " + run.queue())
        .setSpanKind(SpanKind.CONSUMER)
        .setNoParent()
        .setAttribute(SYSTEM, "delayq")
        .setAttribute(OPERATION, "process")
        .setAttribute(DESTINATION, run.queue())
        .setAttribute(MESSAGE_ID, run.jobId())
        .setAttribute(JOB_TYPE, run.type())
        .setAttribute(ATTEMPT, (long) run.attempt());
    SpanContext producer = Span.fromContext(W3C.extract(Context.root(), run.headers(), HEADERS)).getSpanContext();
    if (producer.isValid()) {
      builder.addLink(producer);
    }
    Span span = builder.startSpan();
    try (Scope ignored = span.makeCurrent()) {
      return body.call();
    } catch (Exception | Error e) {
      span.recordException(e);
      span.setStatus(StatusCode.ERROR, e.getClass().getSimpleName());
      throw e;
    } finally {
      span.end();
    }
  }

  @Override
  public boolean enabled() {
    return true;
  }
}
