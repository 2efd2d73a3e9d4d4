package dev.berth.cli;

import java.lang.reflect.InvocationHandler;
import java.lang.reflect.Proxy;
import java.util.Optional;
import java.util.concurrent.Semaphore;
import java.util.function.Supplier;

/**
 * Notices terminal resizes. It handles {@code SIGWINCH} through {@code sun.misc.Signal} (in {@code
 * jdk.unsupported}, which every JDK ships), looked up by reflection so the build needs no internal
 * API and a JVM that refuses the signal still works: then it polls the size every 500 ms instead.
 * Either way the callback runs on one worker thread, never in the signal handler, and a burst of
 * signals while it runs coalesces into one more call.
 */
final class ResizeWatcher implements Terminal.Handle {

  static final long POLL_MILLIS = 500;

  private final Semaphore pending = new Semaphore(0);
  private final Thread worker;
  private volatile boolean closed;
  private Runnable uninstall = () -> {};
  private final boolean usesSignal;

  private ResizeWatcher(Runnable onResize, Supplier<Optional<Terminal.Size>> size) {
    this.usesSignal = installWinch();
    this.worker =
        Thread.ofVirtual()
            .name("berth-resize")
            .start(usesSignal ? () -> onSignal(onResize) : () -> poll(onResize, size));
  }

  static ResizeWatcher start(Runnable onResize, Supplier<Optional<Terminal.Size>> size) {
    return new ResizeWatcher(onResize, size);
  }

  /** Whether SIGWINCH is handled (else the size is polled). */
  boolean usesSignal() {
    return usesSignal;
  }

  private void onSignal(Runnable onResize) {
    try {
      while (!closed) {
        pending.acquire();
        pending.drainPermits();
        if (!closed) {
          onResize.run();
        }
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  private void poll(Runnable onResize, Supplier<Optional<Terminal.Size>> size) {
    Optional<Terminal.Size> last = size.get();
    try {
      while (!closed) {
        Thread.sleep(POLL_MILLIS);
        Optional<Terminal.Size> now = size.get();
        if (!now.equals(last) && !closed) {
          last = now;
          onResize.run();
        }
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  private boolean installWinch() {
    try {
      Class<?> signalClass = Class.forName("sun.misc.Signal");
      Class<?> handlerClass = Class.forName("sun.misc.SignalHandler");
      Object winch = signalClass.getConstructor(String.class).newInstance("WINCH");
      InvocationHandler onSignal =
          (proxy, method, args) ->
              switch (method.getName()) {
                case "handle" -> {
                  pending.release();
                  yield null;
                }
                case "hashCode" -> System.identityHashCode(proxy);
                case "equals" -> proxy == args[0];
                default -> "berth SIGWINCH handler";
              };
      Object handler =
          Proxy.newProxyInstance(
              ResizeWatcher.class.getClassLoader(), new Class<?>[] {handlerClass}, onSignal);
      var handle = signalClass.getMethod("handle", signalClass, handlerClass);
      Object previous = handle.invoke(null, winch, handler);
      uninstall =
          () -> {
            try {
              handle.invoke(null, winch, previous);
            } catch (ReflectiveOperationException | RuntimeException ignored) {
              // The process is ending its attach; a stale handler only wakes a closed watcher.
            }
          };
      return true;
    } catch (ReflectiveOperationException | RuntimeException | LinkageError e) {
      return false;
    }
  }

  @Override
  public void close() {
    closed = true;
    uninstall.run();
    worker.interrupt();
  }
}
