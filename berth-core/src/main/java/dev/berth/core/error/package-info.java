/**
 * The closed family of Berth's domain exceptions, each with a stable machine reason. Expected
 * outcomes are return values; these are for broken rules and lost races.
 */
package dev.berth.core.error;
