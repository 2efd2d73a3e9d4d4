/** Operations: durable, stepwise records of the platform's lifecycle work on a session. */
package dev.berth.core.operation;
