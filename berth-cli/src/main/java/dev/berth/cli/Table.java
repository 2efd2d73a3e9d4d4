package dev.berth.cli;

import java.util.ArrayList;
import java.util.List;

/**
 * A table for people: a header row and aligned columns separated by two spaces, every cell escaped
 * ({@link Escape#cell}) so a row stays one line and no cell can carry a control sequence. Widths
 * count code points.
 */
final class Table {

  private final List<String> headers;
  private final List<List<String>> rows = new ArrayList<>();

  Table(List<String> headers) {
    this.headers = List.copyOf(headers);
  }

  Table row(List<String> cells) {
    if (cells.size() != headers.size()) {
      throw new IllegalArgumentException(
          "a row of this table has " + headers.size() + " cells, got " + cells.size());
    }
    rows.add(cells.stream().map(Escape::cell).toList());
    return this;
  }

  /** The table, one line per row, each ending with a line feed. */
  String render() {
    int[] widths = new int[headers.size()];
    List<List<String>> all = new ArrayList<>();
    all.add(headers);
    all.addAll(rows);
    for (List<String> row : all) {
      for (int i = 0; i < row.size(); i++) {
        widths[i] = Math.max(widths[i], width(row.get(i)));
      }
    }
    StringBuilder out = new StringBuilder();
    for (List<String> row : all) {
      StringBuilder line = new StringBuilder();
      for (int i = 0; i < row.size(); i++) {
        String cell = row.get(i);
        line.append(cell);
        if (i < row.size() - 1) {
          line.append(" ".repeat(widths[i] - width(cell) + 2));
        }
      }
      out.append(line.toString().stripTrailing()).append('\n');
    }
    return out.toString();
  }

  private static int width(String cell) {
    return cell.codePointCount(0, cell.length());
  }
}
