/**
 * {@code bin/delayq-supervisor}: the picocli commands, the status text and the daemon launch.
 * The top of the supervisor: it wires the core, the control socket, the host plumbing and the
 * web server together; nothing depends on it.
 */
package dev.delayq.supervisor.cli;
