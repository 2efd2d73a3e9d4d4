// Lists 10,000 sessions the way GET /sessions does without a limit (the store's keyset pages of
// 1000, each row made a Session, deleted ones left out), against a baseline measured in the same
// run: a plain JDBC scan of the same rows' bodies, unparsed. It measures the store's part of the
// route (rows and parsing, warm: the store keeps parsed sessions by version); the JSON the route
// writes is not in it. Run with `make bench`.

import dev.berth.core.session.DesiredState;
import dev.berth.core.session.Session;
import dev.berth.core.session.SessionId;
import dev.berth.core.session.TenantId;
import dev.berth.core.session.WorkloadType;
import dev.berth.core.store.Page;
import dev.berth.core.store.SessionQuery;
import dev.berth.server.store.sql.SqlSessionStore;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.DriverManager;
import java.time.Clock;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.Random;

public class ListSessionsBench {
  private static final int SESSIONS = 10_000;
  private static final int DELETED = 1_000;
  private static final int ROUNDS = 15;

  public static void main(String[] args) throws Exception {
    Path dir = Files.createTempDirectory("berth-bench-");
    Path db = dir.resolve("berth.db");
    SqlSessionStore store = SqlSessionStore.openSqlite(db, Clock.systemUTC());
    Random random = new Random(7);
    long made = System.nanoTime();
    for (int i = 0; i < SESSIONS; i++) {
      byte[] id = new byte[16];
      random.nextBytes(id);
      Session s =
          store.create(
              Session.request(
                  new SessionId(HexFormat.of().formatHex(id)),
                  new TenantId("tenant-" + (i % 20)),
                  "session-" + i,
                  new WorkloadType("shell"),
                  Clock.systemUTC().instant(),
                  "bench"));
      if (i < DELETED) {
        store.compareAndSet(
            s.withIntent(DesiredState.TERMINATED, Clock.systemUTC().instant(), "bench", "bench"),
            s.version());
      }
    }
    System.out.printf(
        "made %d sessions (%d deleted) in %d ms%n",
        SESSIONS, DELETED, (System.nanoTime() - made) / 1_000_000);

    double[] listing = new double[ROUNDS];
    double[] baseline = new double[ROUNDS];
    for (int round = 0; round < ROUNDS; round++) {
      long start = System.nanoTime();
      int listed = listAll(store);
      listing[round] = (System.nanoTime() - start) / 1e6;
      if (listed != SESSIONS - DELETED) {
        throw new IllegalStateException("listed " + listed + " sessions");
      }
      start = System.nanoTime();
      int scanned = scan(db);
      baseline[round] = (System.nanoTime() - start) / 1e6;
      if (scanned != SESSIONS) {
        throw new IllegalStateException("scanned " + scanned + " rows");
      }
    }
    double list = median(listing);
    double raw = median(baseline);
    System.out.printf(
        "GET /sessions without a limit, %d live of %d: median %.1f ms; raw scan %.1f ms;"
            + " ratio %.1fx (target: under 100 ms)%n",
        SESSIONS - DELETED, SESSIONS, list, raw, list / raw);
    store.close();
    // Nothing of a run stays behind in /tmp.
    new ProcessBuilder("rm", "-rf", dir.toString()).inheritIO().start().waitFor();
  }

  private static int listAll(SqlSessionStore store) {
    SessionQuery query =
        SessionQuery.all(SessionQuery.MAX_LIMIT).withDeleted(SessionQuery.Deleted.EXCLUDED);
    int count = 0;
    Page<Session> page = store.list(query);
    while (true) {
      count += page.items().size();
      if (page.nextPageToken().isEmpty()) {
        return count;
      }
      page = store.list(query.after(page.nextPageToken().get()));
    }
  }

  private static int scan(Path db) throws Exception {
    try (var c = DriverManager.getConnection("jdbc:sqlite:" + db);
        var st = c.createStatement();
        var rs = st.executeQuery("SELECT body FROM sessions ORDER BY created_at, id")) {
      int n = 0;
      long chars = 0;
      while (rs.next()) {
        chars += rs.getString(1).length();
        n++;
      }
      return chars > 0 ? n : 0;
    }
  }

  private static double median(double[] values) {
    double[] sorted = values.clone();
    Arrays.sort(sorted);
    return sorted[sorted.length / 2];
  }
}
