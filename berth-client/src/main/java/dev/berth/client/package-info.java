/**
 * The Berth client: a Java API over the Berth server's HTTP interface, used by the {@code berth}
 * command line and by other programs. This module is a placeholder; it depends only on {@code
 * berth-core} and holds no code yet.
 */
package dev.berth.client;
