/**
 * The worker JVM the supervisor runs: {@link dev.delayq.workerproc.WorkerMain} wires the worker
 * engine (dev.delayq.worker) to signals, a crash record and exit codes. Only wiring lives here;
 * not for apps, which run the engine with {@code Worker.inApp}.
 */
package dev.delayq.workerproc;
