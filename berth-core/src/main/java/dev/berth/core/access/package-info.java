/**
 * The use cases that requests call (create, list, read, delete, recover, snapshot, keep alive),
 * each within the caller's scope.
 */
@NullMarked
package dev.berth.core.access;

import org.jspecify.annotations.NullMarked;
