/** Trace context carried in job headers, from the span that enqueued a job to its handler's run (OpenTelemetry when the app has it). */
package dev.delayq.tracing;
