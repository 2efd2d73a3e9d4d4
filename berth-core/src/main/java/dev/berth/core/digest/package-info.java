/** SHA-256, the one digest Berth uses. */
@NullMarked
package dev.berth.core.digest;

import org.jspecify.annotations.NullMarked;
