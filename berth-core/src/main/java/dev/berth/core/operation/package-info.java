/** Operations: durable, stepwise records of the platform's lifecycle work on a session. */
@NullMarked
package dev.berth.core.operation;

import org.jspecify.annotations.NullMarked;
