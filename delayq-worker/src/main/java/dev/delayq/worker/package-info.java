/**
 * The worker engine: {@link dev.delayq.worker.Worker} (for an app, {@code Worker.inApp}) is its
 * public face; everything else here is package-private. A {@code Consumer} claims, runs and
 * acknowledges; {@code ClaimScheduler} decides where and when it claims, {@code GiveBack} what it
 * hands back, {@code AckSender} and its lanes what it reports, {@code Heartbeat} and
 * {@code HandlerAnnouncer} what the worker says of itself.
 */
package dev.delayq.worker;
