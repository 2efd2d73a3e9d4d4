/** The archive port: durable, atomically committed snapshots of session state. */
package dev.berth.core.archive;
