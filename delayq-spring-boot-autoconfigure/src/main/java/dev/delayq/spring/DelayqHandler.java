package dev.delayq.spring;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Marks a method of a Spring bean as the handler of one job type, run by the in-app worker
 * ({@code delayq.worker.enabled=true}) beside the app's {@link dev.delayq.job.JobHandler} beans:
 *
 * <pre>
 * &#64;DelayqHandler("order_close")
 * void close(OrderClose order, JobContext job) { ... }
 * </pre>
 *
 * <p>The method takes the payload, a {@link dev.delayq.job.JobContext}, both (in either order) or
 * neither. The payload is the job's JSON bound by Jackson to the parameter's declared type,
 * generics included ({@code List<Item>}, {@code Map<String, Object>}, a record, a
 * {@code JsonNode}), with the app's {@code ObjectMapper} when it has one. The method returns
 * {@code void} (the job is done) or a {@link dev.delayq.job.JobResult}. A thrown exception, or a
 * payload that does not bind to the parameter, is a failed attempt: retried with backoff, and
 * dead-lettered after the last one with that error kept as the job's last error.
 *
 * <p>A signature other than these, or a type with two handlers (two methods, or a method and a
 * {@code JobHandler} bean), stops the context's start with a message naming the method and the
 * type. As for any handler, the method may run on several consumer threads at once, and a job
 * may run more than once: keep it thread-safe and idempotent.
 */
@Target(ElementType.METHOD)
@Retention(RetentionPolicy.RUNTIME)
@Documented
public @interface DelayqHandler {

  /** The job type this method runs, matching {@code [a-z0-9_.:-]{1,64}}. */
  String value();
}
