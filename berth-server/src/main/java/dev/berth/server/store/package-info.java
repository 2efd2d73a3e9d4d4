/**
 * What the server's store adapters share beyond berth-store (the records' JSON, the page token, the
 * corrupt-record error and the session store assembled from its parts, which the ConfigMap store
 * shares too): the error raised for a store that cannot be used. Each adapter lives in a subpackage
 * named for its technology.
 */
@NullMarked
package dev.berth.server.store;

import org.jspecify.annotations.NullMarked;
