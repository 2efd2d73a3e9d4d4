package dev.berth.core.lifecycle;

import dev.berth.core.store.SessionStore;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.util.HashMap;
import java.util.Map;

/** A store that counts the calls made to it, by method name, and passes them on. */
final class CountingSessionStore {
  private final Map<String, Integer> calls = new HashMap<>();
  final SessionStore store;

  CountingSessionStore(SessionStore target) {
    store =
        (SessionStore)
            Proxy.newProxyInstance(
                SessionStore.class.getClassLoader(),
                new Class<?>[] {SessionStore.class},
                (proxy, method, args) -> {
                  calls.merge(method.getName(), 1, Integer::sum);
                  try {
                    return method.invoke(target, args);
                  } catch (InvocationTargetException e) {
                    throw e.getCause();
                  }
                });
  }

  /** How often {@code method} of the store was called since the last {@link #reset}. */
  int calls(String method) {
    return calls.getOrDefault(method, 0);
  }

  void reset() {
    calls.clear();
  }
}
