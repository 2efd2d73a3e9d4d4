/**
 * What the store adapters share: the stable JSON body format of sessions, operations and executions
 * ({@link dev.berth.server.store.StoreJson}) and the error raised for a stored record that cannot
 * be read. Each adapter lives in a subpackage named for its technology.
 */
@NullMarked
package dev.berth.server.store;

import org.jspecify.annotations.NullMarked;
