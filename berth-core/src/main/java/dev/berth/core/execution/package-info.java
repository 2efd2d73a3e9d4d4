/** Executions: user actions inside a running session, with their own states and outcomes. */
package dev.berth.core.execution;
