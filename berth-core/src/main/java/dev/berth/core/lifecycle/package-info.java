/**
 * The lifecycle use cases: writing intent, reconciling a session towards it under its lease, and
 * recovering after a restore of an older store backup.
 */
@NullMarked
package dev.berth.core.lifecycle;

import org.jspecify.annotations.NullMarked;
