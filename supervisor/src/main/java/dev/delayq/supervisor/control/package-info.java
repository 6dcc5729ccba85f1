/**
 * The control socket: its protocol, the server that answers {@code status}, {@code reload} and
 * {@code stop} by asking the supervision core, and the client the CLI talks through. Depends on
 * the core and the host plumbing, never on the CLI.
 */
package dev.delayq.supervisor.control;
