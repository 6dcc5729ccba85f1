/**
 * The supervision core: the {@link dev.delayq.supervisor.Supervisor}'s control loop, each
 * {@link dev.delayq.supervisor.Child}'s state machine, backoff and restart budget, the stop
 * sequence, instant recovery, and the {@link dev.delayq.supervisor.ChildLauncher} that gives it
 * processes. Depends on the host plumbing ({@code .host}) only; the control socket
 * ({@code .control}) and the CLI ({@code .cli}) sit above it.
 */
package dev.delayq.supervisor;
