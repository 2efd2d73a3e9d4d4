package dev.berth.core.testing.architecture;

import java.util.List;
import java.util.function.Supplier;

/** A class of known sizes, measured by {@link SizeLimitsTest}. */
final class SizeFixture {
  private final List<Supplier<String>> parts;

  SizeFixture() {
    this.parts = List.of(() -> "a", () -> "b");
  }

  /** Nine lines, most of them a lambda's body, which the class file keeps in a method apart. */
  static Supplier<Integer> withLambda() {
    return () -> {
      int sum = 0;
      for (int i = 0; i < 3; i++) {
        sum += i;
      }
      return sum;
    };
  }

  int count() {
    return parts.size();
  }

  /** A nested class: its method is measured with the file. */
  static final class Nested {
    @Override
    public String toString() {
      return "nested";
    }
  }
}
