/**
 * The host the supervisor runs on: its home and private directories and files, the pid file,
 * rotating logs, signals, the embedded Redis's readiness and watchdog, the Redis preflight.
 * Depends on nothing else of the supervisor.
 */
package dev.delayq.supervisor.host;
