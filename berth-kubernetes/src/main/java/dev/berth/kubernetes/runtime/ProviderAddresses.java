package dev.berth.kubernetes.runtime;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.List;

/**
 * The addresses a provider's host name stands for now, which a session pod's NetworkPolicy lets it
 * reach (a NetworkPolicy names addresses, never hosts). Injected so that a test names its own.
 */
@FunctionalInterface
public interface ProviderAddresses {

  /** The system resolver's; an IP literal stands for itself without a lookup. */
  ProviderAddresses DNS = host -> List.of(InetAddress.getAllByName(host));

  /**
   * {@code host}'s addresses; never empty.
   *
   * @throws UnknownHostException when {@code host} resolves to nothing
   */
  List<InetAddress> of(String host) throws UnknownHostException;
}
