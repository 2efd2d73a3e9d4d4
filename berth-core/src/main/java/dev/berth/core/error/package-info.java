/**
 * The closed family of Berth's domain exceptions, each with a stable machine reason. Expected
 * outcomes are return values; these are for broken rules and lost races.
 */
@NullMarked
package dev.berth.core.error;

import org.jspecify.annotations.NullMarked;
