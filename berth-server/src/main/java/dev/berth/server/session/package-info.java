/**
 * The core's session use cases as the API calls them, the idle reaper, and the signals requests
 * wait on.
 */
@NullMarked
package dev.berth.server.session;

import org.jspecify.annotations.NullMarked;
