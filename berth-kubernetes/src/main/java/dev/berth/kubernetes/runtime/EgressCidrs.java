package dev.berth.kubernetes.runtime;

import java.util.List;
import java.util.regex.Pattern;

/** An operator's list of a provider's address ranges, each {@code address/bits}. */
public final class EgressCidrs {
  private static final Pattern IPV4 =
      Pattern.compile(
          "(25[0-5]|2[0-4]\\d|1?\\d?\\d)(\\.(25[0-5]|2[0-4]\\d|1?\\d?\\d)){3}/(3[0-2]|[12]?\\d)");
  private static final Pattern IPV6 = Pattern.compile("[0-9a-fA-F:]*:[0-9a-fA-F:.]*/(\\d{1,3})");

  private EgressCidrs() {}

  /**
   * {@code cidrs}, each checked.
   *
   * @throws IllegalArgumentException naming the first that is no IPv4 or IPv6 CIDR
   */
  public static List<String> check(List<String> cidrs) {
    for (String cidr : cidrs) {
      var v6 = IPV6.matcher(cidr);
      boolean valid =
          IPV4.matcher(cidr).matches() || (v6.matches() && Integer.parseInt(v6.group(1)) <= 128);
      if (!valid) {
        throw new IllegalArgumentException(
            "a provider's egress CIDR is an address and a prefix length, e.g. 160.79.104.0/23 or"
                + " 2607:6bc0::/48, was \""
                + cidr
                + "\"");
      }
    }
    return List.copyOf(cidrs);
  }
}
