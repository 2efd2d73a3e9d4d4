package dev.berth.store;

import static org.assertj.core.api.Assertions.assertThat;

import dev.berth.core.store.Page;
import dev.berth.store.PageCursor.Keyed;
import java.time.Instant;
import java.util.List;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

/** How a listing's items, fetched one beyond the page, become a page and its token. */
class PageCursorTest {

  private static List<Keyed<String>> fetched(int rows) {
    return IntStream.rangeClosed(1, rows)
        .mapToObj(
            i -> new Keyed<>("s-" + i, new PageCursor(Instant.ofEpochSecond(0, i * 10L), id(i))))
        .toList();
  }

  /** A session id (32 hex digits) ending in {@code i}. */
  private static String id(int i) {
    return "%032x".formatted(i);
  }

  @Test
  void fewerRowsThanTheLimitMakeTheLastPage() {
    Page<String> page = PageCursor.page(fetched(2), 3);

    assertThat(page.items()).containsExactly("s-1", "s-2");
    assertThat(page.nextPageToken()).isEmpty();
  }

  @Test
  void exactlyTheLimitOfRowsMakesTheLastPage() {
    Page<String> page = PageCursor.page(fetched(3), 3);

    assertThat(page.items()).containsExactly("s-1", "s-2", "s-3");
    assertThat(page.nextPageToken()).isEmpty();
  }

  @Test
  void theRowBeyondTheLimitIsLeftOutAndTheTokenResumesAfterThePagesLastItem() {
    Page<String> page = PageCursor.page(fetched(4), 3);

    assertThat(page.items()).containsExactly("s-1", "s-2", "s-3");
    assertThat(page.nextPageToken()).isPresent();
    assertThat(PageCursor.parse(page.nextPageToken().get()))
        .isEqualTo(new PageCursor(Instant.ofEpochSecond(0, 30), id(3)));
  }

  @Test
  void noRowsMakeAnEmptyLastPage() {
    Page<String> page = PageCursor.page(fetched(0), 1);

    assertThat(page.items()).isEmpty();
    assertThat(page.nextPageToken()).isEmpty();
  }

  @Test
  void aTokenCarriesThePlaceToTheNanosecond() {
    PageCursor place = new PageCursor(Instant.parse("2026-11-29T10:00:00.123456789Z"), id(7));

    assertThat(PageCursor.parse(place.token())).isEqualTo(place);
  }
}
