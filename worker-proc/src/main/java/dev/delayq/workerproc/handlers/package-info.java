/** The job handlers the worker JVM ships (noop, order_close, stock_release), found by ServiceLoader. */
package dev.delayq.workerproc.handlers;
