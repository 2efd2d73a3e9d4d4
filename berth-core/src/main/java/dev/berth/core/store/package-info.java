/** The store ports: sessions, operations, executions, the audit log and the session lease. */
package dev.berth.core.store;
