package dev.berth.cli.e2e;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.DatagramPacket;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A test host of the test's own: a network namespace joined to this machine by a veth pair, with
 * {@code 10.213.N.1} on the host's side (an address of the host, which sessions must not reach) and
 * {@code 10.213.N.2} inside, where a listener answers {@code berth-egress-ok}: the stand-in for
 * "the internet" that an {@code egress} session reaches. Made with iproute2 and perl (both in
 * Debian's base system); a missing tool fails the test with the package's name.
 */
final class TestNetwork implements AutoCloseable {
  static final int PORT = 7777;
  static final String GREETING = "berth-egress-ok";

  private final Process holder;
  private final String hostSide;
  private final int subnet;
  private final Process listener;

  private TestNetwork(Process holder, String hostSide, int subnet, Process listener) {
    this.holder = holder;
    this.hostSide = hostSide;
    this.subnet = subnet;
    this.listener = listener;
  }

  /**
   * Makes the test host {@code 10.213.subnet.0/30}. Its namespace is held by a process of its own
   * and named by that pid, not by {@code ip netns add}: a bind mount under {@code /run/netns} was
   * seen once to be invalid the moment after it was made (EINVAL moving the veth into it) while
   * another test's node ran a hundred sessions, and a namespace held by a process cannot be.
   */
  static TestNetwork create(int subnet) {
    String suffix = ProcessHandle.current().pid() + "x" + subnet;
    String hostSide = "bh" + suffix;
    String inside = "bn" + suffix;
    Process holder = start("unshare", "--net", "sleep", "infinity");
    String pid = Long.toString(awaitOwnNetwork(holder));
    try {
      run("ip", "link", "add", hostSide, "type", "veth", "peer", "name", inside);
      run("ip", "link", "set", inside, "netns", pid);
      run("ip", "addr", "add", "10.213." + subnet + ".1/30", "dev", hostSide);
      run("ip", "link", "set", hostSide, "up");
      run(
          "nsenter",
          "-t",
          pid,
          "-n",
          "ip",
          "addr",
          "add",
          "10.213." + subnet + ".2/30",
          "dev",
          inside);
      run("nsenter", "-t", pid, "-n", "ip", "link", "set", inside, "up");
      run("nsenter", "-t", pid, "-n", "ip", "link", "set", "lo", "up");
    } catch (RuntimeException e) {
      holder.destroyForcibly();
      throw e;
    }
    Process listener =
        start(
            "nsenter",
            "-t",
            pid,
            "-n",
            "perl",
            "-MIO::Socket::INET",
            "-e",
            "$|=1; $s = IO::Socket::INET->new(LocalAddr => '10.213."
                + subnet
                + ".2:"
                + PORT
                + "', Listen => 16, ReuseAddr => 1) or die \"listen: $!\"; print \"ready\\n\";"
                + " while ($c = $s->accept) { print $c \""
                + GREETING
                + "\\n\"; close $c }");
    try {
      String line = listener.inputReader().readLine();
      if (!"ready".equals(line)) {
        throw new IllegalStateException("the test host's listener did not start: " + line);
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return new TestNetwork(holder, hostSide, subnet, listener);
  }

  /** The holder's pid once it runs in a network namespace other than this process's. */
  private static long awaitOwnNetwork(Process holder) {
    long deadline = System.nanoTime() + java.time.Duration.ofSeconds(10).toNanos();
    try {
      java.nio.file.Path own =
          java.nio.file.Files.readSymbolicLink(java.nio.file.Path.of("/proc/self/ns/net"));
      while (System.nanoTime() < deadline) {
        java.nio.file.Path ns =
            java.nio.file.Path.of("/proc", Long.toString(holder.pid()), "ns", "net");
        try {
          if (!java.nio.file.Files.readSymbolicLink(ns).equals(own)) {
            return holder.pid();
          }
        } catch (IOException notYet) {
          // The holder is still being exec'd.
        }
        Thread.sleep(5);
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    holder.destroyForcibly();
    throw new IllegalStateException("unshare --net did not make the test host's namespace");
  }

  /** The test host's address, where the listener is: not an address of this machine. */
  String remoteAddress() {
    return "10.213." + subnet + ".2";
  }

  /** This machine's end of the veth pair: an address of the host. */
  String hostAddress() {
    return "10.213." + subnet + ".1";
  }

  @Override
  public void close() {
    listener.destroyForcibly();
    // The veth pair goes with the namespace when its holder ends; its host side is removed first
    // so that nothing of it is left should the holder outlive this.
    run("ip", "link", "del", hostSide);
    holder.destroyForcibly();
  }

  /**
   * A listener on every address of this machine that counts who connects: a service a session must
   * not reach whatever host address it tries.
   */
  static final class Canary implements AutoCloseable {
    private final ServerSocket socket;
    private final DatagramSocket datagrams;
    private final AtomicInteger accepted = new AtomicInteger();

    Canary() {
      try {
        socket = new ServerSocket(0, 50, InetAddress.getByName("0.0.0.0"));
        datagrams = new DatagramSocket(new InetSocketAddress("0.0.0.0", socket.getLocalPort()));
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
      Thread.ofPlatform()
          .daemon()
          .start(
              () -> {
                byte[] buffer = new byte[512];
                while (!datagrams.isClosed()) {
                  try {
                    datagrams.receive(new DatagramPacket(buffer, buffer.length));
                    accepted.incrementAndGet();
                  } catch (IOException e) {
                    return;
                  }
                }
              });
      Thread.ofPlatform()
          .daemon()
          .start(
              () -> {
                while (!socket.isClosed()) {
                  try {
                    Socket connection = socket.accept();
                    accepted.incrementAndGet();
                    connection.close();
                  } catch (IOException e) {
                    return;
                  }
                }
              });
    }

    /** The port it listens on, for TCP and UDP alike. */
    int port() {
      return socket.getLocalPort();
    }

    /** TCP connections accepted and UDP datagrams received. */
    int accepted() {
      return accepted.get();
    }

    @Override
    public void close() {
      datagrams.close();
      try {
        socket.close();
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }
  }

  static void run(String... argv) {
    Process process = start(argv);
    try {
      String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      if (!process.waitFor(30, TimeUnit.SECONDS) || process.exitValue() != 0) {
        throw new IllegalStateException(String.join(" ", argv) + " failed: " + output);
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  private static Process start(String... argv) {
    List<String> command = new ArrayList<>(List.of(argv));
    try {
      return new ProcessBuilder(command).redirectErrorStream(true).start();
    } catch (IOException e) {
      throw new IllegalStateException(
          argv[0]
              + " is missing: the isolation tests need iproute2 and perl (Debian packages iproute2"
              + " and perl-base; bin/ensure-test-tools installs them)",
          e);
    }
  }
}
