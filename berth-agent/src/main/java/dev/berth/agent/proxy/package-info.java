/**
 * The credential proxy: the one place that holds an agent session's model-provider token. The
 * session's CLI is given a loopback URL and a placeholder; the proxy forwards its requests to the
 * one upstream of its {@link dev.berth.agent.proxy.ProviderProfile}, with only allowlisted headers
 * and the real token, and hides the token in whatever comes back.
 */
@NullMarked
package dev.berth.agent.proxy;

import org.jspecify.annotations.NullMarked;
