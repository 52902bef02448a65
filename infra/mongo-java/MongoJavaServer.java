import de.bwaldvogel.mongo.MongoBackend;
import de.bwaldvogel.mongo.MongoDatabase;
import de.bwaldvogel.mongo.MongoServer;
import de.bwaldvogel.mongo.MongoVersion;
import de.bwaldvogel.mongo.backend.CollectionOptions;
import de.bwaldvogel.mongo.backend.CursorRegistry;
import de.bwaldvogel.mongo.backend.Index;
import de.bwaldvogel.mongo.backend.QueryResult;
import de.bwaldvogel.mongo.backend.h2.H2Backend;
import de.bwaldvogel.mongo.backend.memory.MemoryBackend;
import de.bwaldvogel.mongo.backend.memory.MemoryCollection;
import de.bwaldvogel.mongo.backend.memory.MemoryDatabase;
import de.bwaldvogel.mongo.bson.Document;
import de.bwaldvogel.mongo.bson.ObjectId;
import java.util.List;
import java.util.concurrent.CountDownLatch;

/**
 * Starts mongo-java-server (a MongoDB wire-protocol server in Java, de.bwaldvogel:mongo-java-server)
 * on a given loopback address, for infra/up.sh. The library's own mains are hard-wired to
 * localhost:27017.
 *
 *   java -cp 'lib/*:classes' MongoJavaServer HOST PORT memory         in memory, _id lookups (below)
 *   java -cp 'lib/*:classes' MongoJavaServer HOST PORT memory-stock   in memory, the library as is
 *   java -cp 'lib/*:classes' MongoJavaServer HOST PORT h2             H2 MVStore in memory
 *   java -cp 'lib/*:classes' MongoJavaServer HOST PORT h2 FILE.mv     H2 MVStore in a file (kept)
 *
 * Reports itself as MongoDB 6.0 (wire version 17): the library's newest preset, MONGO_5_0, says
 * wire version 8, which the Node driver 7 refuses (it needs at least 9). The reported version only
 * feeds the handshake and buildInfo; the server's behaviour does not change with it.
 *
 * Prints "listening on HOST:PORT (BACKEND)" once bound; SIGTERM/SIGINT shut it down (the H2 file
 * store is committed and closed first).
 */
public final class MongoJavaServer {
  /** What the handshake reports: MongoDB 6.0, the oldest release production runs. */
  private static final MongoVersion REPORTED = new MongoVersion() {
    @Override
    public List<Integer> getVersionArray() {
      return List.of(6, 0, 0);
    }

    @Override
    public int getWireVersion() {
      return 17;
    }
  };

  public static void main(String[] args) throws InterruptedException {
    if (args.length < 3 || args.length > 4) {
      System.err.println("usage: MongoJavaServer HOST PORT memory|memory-stock|h2 [H2_FILE]");
      System.exit(2);
    }
    String host = args[0];
    int port = Integer.parseInt(args[1]);
    String kind = args[2];
    MongoBackend backend;
    String described;
    switch (kind) {
      case "memory" -> {
        backend = new IdLookupMemoryBackend();
        described = "memory, _id lookups";
      }
      case "memory-stock" -> {
        backend = new MemoryBackend();
        described = "memory";
      }
      case "h2" -> {
        backend = args.length == 4 ? new H2Backend(args[3]) : H2Backend.inMemory();
        described = args.length == 4 ? "h2 " + args[3] : "h2 in memory";
      }
      default -> {
        System.err.println("unknown backend '" + kind + "': use memory, memory-stock or h2");
        System.exit(2);
        return;
      }
    }
    backend.version(REPORTED);
    MongoServer server = new MongoServer(backend);
    server.bind(host, port);
    System.out.println("listening on " + host + ":" + port + " (" + described + ")");
    System.out.flush();

    CountDownLatch stopped = new CountDownLatch(1);
    Runtime.getRuntime().addShutdownHook(new Thread(() -> {
      System.out.println("shutting down");
      server.shutdown();  // also closes the backend (H2: commits and closes the store)
      stopped.countDown();
    }, "shutdown"));
    stopped.await();
  }

  /**
   * The library uses an index only when a filter names exactly the index's fields, so the
   * adapter's guarded writes, `{_id: X, pos: {$lt: P}}`, scan the whole collection (cost grows
   * with its size; MongoDB looks `_id` up in its index). Here a filter that pins `_id` to one
   * string or ObjectId first takes the candidates from the `_id` index, exactly as the library
   * does for a bare `{_id: X}`, and then applies the whole filter to them as before. Results are
   * unchanged; only the scan goes.
   */
  static final class IdLookupMemoryBackend extends MemoryBackend {
    @Override
    public MemoryDatabase openOrCreateDatabase(String databaseName) {
      return new IdLookupMemoryDatabase(databaseName, getCursorRegistry());
    }
  }

  static final class IdLookupMemoryDatabase extends MemoryDatabase {
    IdLookupMemoryDatabase(String databaseName, CursorRegistry cursorRegistry) {
      super(databaseName, cursorRegistry);
    }

    @Override
    protected MemoryCollection openOrCreateCollection(String collectionName, CollectionOptions options) {
      return new IdLookupMemoryCollection(this, collectionName, options, cursorRegistry);
    }
  }

  static final class IdLookupMemoryCollection extends MemoryCollection {
    IdLookupMemoryCollection(MongoDatabase database, String name, CollectionOptions options, CursorRegistry cursors) {
      super(database, name, options, cursors);
    }

    @Override
    protected QueryResult queryDocuments(Document query, Document orderBy, int numberToSkip, int limit,
        int batchSize, Document fieldSelector) {
      Object id = query.get("_id");
      if (query.size() > 1 && (id instanceof String || id instanceof ObjectId)) {
        Document byId = new Document("_id", id);
        for (Index<Integer> index : getIndexes()) {
          if (index.canHandle(byId)) {
            return matchDocuments(query, index.getPositions(byId), orderBy, numberToSkip, limit, batchSize,
                fieldSelector);
          }
        }
      }
      return super.queryDocuments(query, orderBy, numberToSkip, limit, batchSize, fieldSelector);
    }
  }
}
