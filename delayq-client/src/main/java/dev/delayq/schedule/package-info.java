/** Recurring schedules as stored and their cadences (cron, every): the model behind {@code DelayQueue.schedules()}. */
package dev.delayq.schedule;
