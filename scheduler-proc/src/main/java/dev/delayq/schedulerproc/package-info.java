/**
 * The scheduler JVM the supervisor runs: {@link dev.delayq.schedulerproc.SchedulerMain} wires the
 * scheduler engine (dev.delayq.scheduler) to signals, the supervisor's death and exit codes. Only
 * wiring lives here; not for apps, which run the engine with {@code Scheduler.inApp}.
 */
package dev.delayq.schedulerproc;
