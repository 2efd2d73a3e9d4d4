package dev.berth.agent.proxy;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@code berth proxy}: one session's credential proxy as a process of its own, so that the token of
 * a session lives in that session's proxy and nowhere else (see {@link CredentialProxy}).
 *
 * <ul>
 *   <li>No arguments: the node's child. The launch is one JSON line on stdin ({@link
 *       ProxyLaunch#fromJson}); stdin stays open, and its end (the node closed it, or died) stops
 *       the proxy. That way the token is in neither the command line nor the environment, and no
 *       proxy outlives the node that started it.
 *   <li>{@code --session ID --listen HOST:PORT}: a pod's sidecar. The provider and the gate come
 *       from {@code BERTH_PROXY_*} variables ({@link ProxyLaunch#fromEnv}); it runs until SIGTERM.
 * </ul>
 *
 * <p>Once bound it prints {@value #READY}{@code <id>} on stdout; everything else (its log) goes to
 * stderr. A launch that cannot run exits {@value #EXIT_INVALID} with a message naming the field; a
 * proxy that cannot start (the socket or port taken, an unreadable CA file) exits {@value
 * #EXIT_FAILED}.
 */
public final class ProxyMain {

  /** The ready line's prefix; the session's id follows. */
  public static final String READY = "berth proxy ready for session ";

  public static final int EXIT_INVALID = 2;
  public static final int EXIT_FAILED = 1;

  /** The longest launch line read: a provider profile is a few hundred bytes. */
  static final int MAX_LAUNCH_BYTES = 1 << 20;

  private static final Logger LOG = LoggerFactory.getLogger(ProxyMain.class);

  private ProxyMain() {}

  public static void main(String[] args) {
    int code = run(List.of(args), System.in, System.out, System.err, System.getenv());
    System.exit(code);
  }

  /** Runs the proxy as {@code args} ask; returns the exit code once it has stopped. */
  public static int run(
      List<String> args,
      InputStream in,
      PrintStream out,
      PrintStream err,
      Map<String, String> env) {
    if (args.isEmpty()) {
      return fromStdin(in, out, err);
    }
    String session = null;
    String listen = null;
    for (int i = 0; i < args.size(); i++) {
      String arg = args.get(i);
      String value = i + 1 < args.size() ? args.get(i + 1) : null;
      if (arg.equals("--session") && value != null) {
        session = value;
        i++;
      } else if (arg.equals("--listen") && value != null) {
        listen = value;
        i++;
      } else {
        err.println(
            "berth proxy: unknown or incomplete argument \""
                + arg
                + "\"; run it with no arguments (the launch as JSON on stdin) or with --session ID"
                + " --listen HOST:PORT (the provider from BERTH_PROXY_* variables)");
        return EXIT_INVALID;
      }
    }
    if (session == null || listen == null) {
      err.println(
          "berth proxy: --session and --listen go together; give both, or neither to read the"
              + " launch from stdin");
      return EXIT_INVALID;
    }
    return fromEnv(session, listen, env, out, err);
  }

  /** The node's child: the launch from stdin, then serving until stdin ends. */
  public static int fromStdin(InputStream in, PrintStream out, PrintStream err) {
    ProxyLaunch.Checked launch;
    try {
      launch = ProxyLaunch.fromJson(firstLine(in)).check(ProxyLaunch.Source.STDIN);
    } catch (ProxyLaunch.Invalid e) {
      err.println("berth proxy: " + e.getMessage());
      return EXIT_INVALID;
    } catch (IOException e) {
      err.println("berth proxy: cannot read the launch from stdin: " + e.getMessage());
      return EXIT_INVALID;
    }
    return serve(launch, out, err, () -> drain(in));
  }

  /** A sidecar: the launch from the environment, then serving until the process is stopped. */
  public static int fromEnv(
      String session, String listen, Map<String, String> env, PrintStream out, PrintStream err) {
    ProxyLaunch.Checked launch;
    try {
      launch = ProxyLaunch.fromEnv(session, listen, env).check(ProxyLaunch.Source.ENV);
    } catch (ProxyLaunch.Invalid e) {
      err.println("berth proxy: " + e.getMessage());
      return EXIT_INVALID;
    }
    CountDownLatch forever = new CountDownLatch(1);
    return serve(
        launch,
        out,
        err,
        () -> {
          try {
            forever.await(); // SIGTERM runs the shutdown hook, which stops the proxy
          } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
          }
        });
  }

  private static int serve(
      ProxyLaunch.Checked launch, PrintStream out, PrintStream err, Runnable untilDone) {
    CredentialProxy proxy;
    try {
      proxy = start(launch);
    } catch (RuntimeException e) {
      err.println(
          "berth proxy: cannot start the credential proxy of session "
              + launch.session().value()
              + " on "
              + launch.listen()
              + ": "
              + e.getMessage()
              + "; check that the address is free and the CA file readable");
      return EXIT_FAILED;
    }
    AtomicBoolean closed = new AtomicBoolean();
    Runnable close =
        () -> {
          if (closed.compareAndSet(false, true)) {
            proxy.close();
          }
        };
    Thread hook = new Thread(close, "berth-proxy-shutdown");
    Runtime.getRuntime().addShutdownHook(hook);
    LOG.info(
        "credential proxy of session {} listening on {} for {}",
        launch.session().value(),
        launch.listen(),
        launch.profile());
    out.println(READY + launch.session().value());
    out.flush();
    untilDone.run();
    LOG.info("credential proxy of session {} stopping", launch.session().value());
    close.run();
    try {
      Runtime.getRuntime().removeShutdownHook(hook);
    } catch (IllegalStateException e) {
      // Already shutting down: the hook runs (and finds the proxy closed).
    }
    return 0;
  }

  /**
   * Starts the proxy of a checked launch.
   *
   * <p>INTEGRATOR: the approval gate adds {@code CredentialProxy.start(profile, listen,
   * Optional<GateSettings>)}; this is the one place that passes {@code launch.gate()} on, with the
   * session. Until both are in, a launch with a gate is refused rather than run ungated.
   */
  static CredentialProxy start(ProxyLaunch.Checked launch) {
    if (launch.gate().isPresent()) {
      throw new IllegalStateException(
          "this build's proxy cannot gate tool calls yet (approval "
              + launch.gate().get()
              + "); run the session with approval policy off");
    }
    return CredentialProxy.start(launch.profile(), launch.listen(), launch.session());
  }

  /** The launch: bytes up to the first newline, at most {@link #MAX_LAUNCH_BYTES}. */
  static String firstLine(InputStream in) throws IOException {
    ByteArrayOutputStream line = new ByteArrayOutputStream();
    int b;
    while ((b = in.read()) >= 0 && b != '\n') {
      if (line.size() >= MAX_LAUNCH_BYTES) {
        throw new ProxyLaunch.Invalid(
            "the launch on stdin must be one line under 1 MiB; end it with a newline");
      }
      line.write(b);
    }
    if (line.size() == 0 && b < 0) {
      throw new ProxyLaunch.Invalid(
          "stdin ended before the launch; write the launch as one JSON line, and keep stdin open"
              + " while the proxy should run");
    }
    return line.toString(StandardCharsets.UTF_8);
  }

  /** Reads stdin to its end: the node closed it, or died. */
  private static void drain(InputStream in) {
    byte[] buffer = new byte[256];
    try {
      while (in.read(buffer) >= 0) {
        // Nothing more is expected; whatever comes is ignored.
      }
    } catch (IOException e) {
      LOG.info("stdin failed ({}); stopping as if it ended", e.toString());
    }
  }
}
