package dev.delayq.test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.delayq.JobOptions;
import dev.delayq.job.JobContext;
import dev.delayq.job.JobHandler;
import dev.delayq.job.JobResult;
import io.opentelemetry.api.GlobalOpenTelemetry;
import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.api.trace.StatusCode;
import io.opentelemetry.context.Scope;
import io.opentelemetry.sdk.OpenTelemetrySdk;
import io.opentelemetry.sdk.testing.exporter.InMemorySpanExporter;
import io.opentelemetry.sdk.trace.SdkTracerProvider;
import io.opentelemetry.sdk.trace.data.SpanData;
import io.opentelemetry.sdk.trace.export.SimpleSpanProcessor;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** Trace context from the span that enqueued a job to the handler's run, with a real SDK. */
@ExtendWith(DelayqExtension.class)
class TraceContextThroughTestQueueTest {
  private static final InMemorySpanExporter SPANS = InMemorySpanExporter.create();
  private static OpenTelemetrySdk sdk;

  /** Remembers the headers and the span its runs saw. */
  static final class Recording implements JobHandler {
    final Map<String, Map<String, String>> headers = new ConcurrentHashMap<>();
    final Map<String, String> spanIds = new ConcurrentHashMap<>();

    @Override
    public String type() {
      return "traced";
    }

    @Override
    public JobResult handle(JobContext job) {
      headers.put(job.id(), job.headers());
      spanIds.put(job.id(), Span.current().getSpanContext().getSpanId());
      if (job.payload().path("fail").asBoolean()) {
        throw new IllegalStateException("boom");
      }
      return JobResult.done();
    }
  }

  @BeforeAll
  static void installSdk() {
    GlobalOpenTelemetry.resetForTest();
    sdk = OpenTelemetrySdk.builder()
        .setTracerProvider(SdkTracerProvider.builder().addSpanProcessor(SimpleSpanProcessor.create(SPANS)).build())
        .buildAndRegisterGlobal();
  }

  @AfterAll
  static void removeSdk() {
    sdk.close();
    GlobalOpenTelemetry.resetForTest();
  }

  @BeforeEach
  void forgetSpans() {
    SPANS.reset();
  }

  @Test
  void theHandlerRunsInAConsumerSpanLinkedToTheSpanThatEnqueuedIt(TestQueue delayq) {
    Recording handler = new Recording();
    delayq.handle(handler);
    Span request = sdk.getTracer("test").spanBuilder("POST /orders").startSpan();
    String id;
    try (Scope ignored = request.makeCurrent()) {
      id = delayq.queue().delay("traced", Map.of(), Duration.ofHours(1),
          JobOptions.defaults().header("tenant", "acme")).id();
    } finally {
      request.end();
    }

    assertEquals(1, delayq.runAll().succeeded());

    String traceparent = handler.headers.get(id).get("traceparent");
    assertEquals("00-" + request.getSpanContext().getTraceId() + "-" + request.getSpanContext().getSpanId()
        + "-" + request.getSpanContext().getTraceFlags().asHex(),
        traceparent);
    assertEquals("acme", handler.headers.get(id).get("tenant"), "the producer's own headers travel too");
    SpanData run = consumerSpans().get(0);
    assertEquals(handler.spanIds.get(id), run.getSpanId(), "the handler ran inside the consumer span");
    assertEquals(SpanKind.CONSUMER, run.getKind());
    assertTrue(!run.getParentSpanContext().isValid(), "linked, not a child: a delay can be hours");
    assertEquals(1, run.getLinks().size());
    assertEquals(request.getSpanContext().getSpanId(), run.getLinks().get(0).getSpanContext().getSpanId());
    assertEquals(request.getSpanContext().getTraceId(), run.getLinks().get(0).getSpanContext().getTraceId());
    assertEquals("process " + delayq.config().queue().name(), run.getName());
    assertEquals(id, run.getAttributes().get(AttributeKey.stringKey("messaging.message.id")));
    assertEquals("traced", run.getAttributes().get(AttributeKey.stringKey("delayq.job.type")));
  }

  @Test
  void aFailedRunEndsItsSpanWithTheErrorAndEachRetryHasASpanOfItsOwn(TestQueue delayq) {
    delayq.handle(new Recording());
    delayq.queue().delay("traced", Map.of("fail", true), Duration.ZERO, JobOptions.defaults().maxAttempts(2));

    assertEquals(2, delayq.runAll().failed());

    List<SpanData> runs = consumerSpans();
    assertEquals(2, runs.size());
    for (SpanData run : runs) {
      assertEquals(StatusCode.ERROR, run.getStatus().getStatusCode());
      assertTrue(run.getEvents().stream().anyMatch(e -> e.getName().equals("exception")), "the exception is recorded");
      assertTrue(run.getLinks().isEmpty(), "enqueued outside any span: nothing to link");
    }
    assertEquals(List.of(1L, 2L), runs.stream()
        .map(s -> s.getAttributes().get(AttributeKey.longKey("delayq.job.attempt"))).sorted().toList());
  }

  @Test
  void aJobEnqueuedOutsideAnySpanHasNoTraceHeader(TestQueue delayq) {
    Recording handler = new Recording();
    delayq.handle(handler);
    String id = delayq.queue().delay("traced", Map.of(), Duration.ZERO).id();

    delayq.runDue();

    assertEquals(Map.of(), handler.headers.get(id));
  }

  private static List<SpanData> consumerSpans() {
    return SPANS.getFinishedSpanItems().stream().filter(s -> s.getKind() == SpanKind.CONSUMER).toList();
  }
}
