/**
 * The configuration: {@link dev.delayq.config.DelayqConfig} and its records, loaded by
 * {@link dev.delayq.config.ConfigLoader} from {@code conf/delayq.yml}, {@code DELAYQ_*} variables
 * and flags. Apps use the loader and the records; the rest is internal.
 */
package dev.delayq.config;
