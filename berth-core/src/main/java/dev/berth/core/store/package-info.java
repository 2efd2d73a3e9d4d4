/** The store ports: sessions, operations, executions, the audit log and the session lease. */
@NullMarked
package dev.berth.core.store;

import org.jspecify.annotations.NullMarked;
