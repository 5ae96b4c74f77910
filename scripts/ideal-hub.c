/* The ideal hub: what any hub must do per write and nothing more, in C (see
 * scripts/measure-ideal-hub, which describes the modes, and hearth-bench hub-writes, which
 * runs it beside hearthd).
 *
 * usage: ideal-hub MODE WRITERS WARM SECONDS DIR   (MODE: direct, serial or pipelined)
 * prints: tx/s, p50 µs, p99 µs, the hub's CPU a transaction in µs (warm-up included) */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

enum { maxWriters = 64, maxSamples = 1000000, requestBytes = 160, replyBytes = 64 };

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec + t.tv_nsec * 1e-9;
}

static void check(int code, sqlite3 *db, const char *what) {
  if (code != SQLITE_OK && code != SQLITE_DONE && code != SQLITE_ROW) {
    fprintf(stderr, "ideal-hub: %s: %s\n", what, db ? sqlite3_errmsg(db) : sqlite3_errstr(code));
    exit(1);
  }
}

static void run(sqlite3 *db, const char *sql) {
  char *message = NULL;
  if (sqlite3_exec(db, sql, NULL, NULL, &message) != SQLITE_OK) {
    fprintf(stderr, "ideal-hub: %s: %s\n", sql, message);
    exit(1);
  }
}

static sqlite3_stmt *prepare(sqlite3 *db, const char *sql) {
  sqlite3_stmt *statement;
  check(sqlite3_prepare_v2(db, sql, -1, &statement, NULL), db, sql);
  return statement;
}

static void step(sqlite3 *db, sqlite3_stmt *statement) {
  check(sqlite3_step(statement), db, sqlite3_sql(statement));
  sqlite3_reset(statement);
}

static void fullWrite(int fd, const void *bytes, size_t count) {
  for (size_t done = 0; done < count;) {
    ssize_t n = write(fd, (const char *)bytes + done, count - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) { perror("ideal-hub: write"); exit(1); }
    done += n;
  }
}

static int fullRead(int fd, void *bytes, size_t count) {
  for (size_t done = 0; done < count;) {
    ssize_t n = read(fd, (char *)bytes + done, count - done);
    if (n < 0 && errno == EINTR) continue;
    if (n == 0) return 0;
    if (n < 0) { perror("ideal-hub: read"); exit(1); }
    done += n;
  }
  return 1;
}

/* A writer's times: what it wrote between `from` and `to`, saved to `path`. */
static void saveLatencies(const char *path, double *latencies, long count) {
  FILE *file = fopen(path, "wb");
  fwrite(latencies, sizeof(double), count, file);
  fclose(file);
}

static void directWriter(const char *database, int index, double start, double from, double to,
                         const char *out) {
  sqlite3 *db;
  check(sqlite3_open(database, &db), NULL, "open");
  sqlite3_busy_timeout(db, 60000);
  char sql[160];
  snprintf(sql, sizeof sql, "CREATE TABLE IF NOT EXISTS w%d (id INTEGER PRIMARY KEY, key TEXT NOT NULL)", index);
  run(db, sql);
  snprintf(sql, sizeof sql, "INSERT INTO w%d (key) VALUES (?)", index);
  sqlite3_stmt *insert = prepare(db, sql), *begin = prepare(db, "BEGIN IMMEDIATE"),
               *commit = prepare(db, "COMMIT");
  double *latencies = malloc(sizeof(double) * maxSamples);
  long count = 0;
  while (now() < start) usleep(100);
  for (long i = 0;; i++) {
    double before = now();
    if (before >= to) break;
    char key[64];
    snprintf(key, sizeof key, "w%d-%ld", index, i);
    step(db, begin);
    sqlite3_bind_text(insert, 1, key, -1, SQLITE_TRANSIENT);
    step(db, insert);
    step(db, commit);
    double after = now();
    if (before >= from && after <= to && count < maxSamples) latencies[count++] = after - before;
  }
  saveLatencies(out, latencies, count);
  sqlite3_close_v2(db);
}

static void hubWriter(const char *socketPath, int index, double start, double from, double to,
                      const char *out) {
  int fd = socket(AF_UNIX, SOCK_STREAM, 0);
  struct sockaddr_un address = {.sun_family = AF_UNIX};
  strncpy(address.sun_path, socketPath, sizeof address.sun_path - 1);
  while (connect(fd, (struct sockaddr *)&address, sizeof address) != 0) usleep(1000);
  double *latencies = malloc(sizeof(double) * maxSamples);
  long count = 0;
  char request[requestBytes], reply[replyBytes];
  memset(request, ' ', sizeof request);
  while (now() < start) usleep(100);
  for (long i = 0;; i++) {
    double before = now();
    if (before >= to) break;
    int length = snprintf(request, sizeof request, "%d %ld", index, i);
    request[length] = ' ';
    fullWrite(fd, request, sizeof request);
    if (!fullRead(fd, reply, sizeof reply)) { fprintf(stderr, "ideal-hub: hub closed\n"); exit(1); }
    double after = now();
    if (before >= from && after <= to && count < maxSamples) latencies[count++] = after - before;
  }
  close(fd);
  saveLatencies(out, latencies, count);
}

/* The hub. */
static sqlite3 *hubDB;
static sqlite3_stmt *lookUp, *insertRow[maxWriters], *insertFeed, *insertRecord, *beginStatement,
    *commitStatement;
static long sequence;
static int pipelined, walFD = -1;

/* Groups committed and not yet durable, for the syncing thread: the writers' sockets. */
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t pending = PTHREAD_COND_INITIALIZER;
static int waiting[1 << 16], waitingCount, stopping;

static void reply(int fd) {
  char bytes[replyBytes];
  memset(bytes, 'r', sizeof bytes);
  fullWrite(fd, bytes, sizeof bytes);
}

static void *syncer(void *unused) {
  static int taken[1 << 16];
  for (;;) {
    pthread_mutex_lock(&lock);
    while (waitingCount == 0 && !stopping) pthread_cond_wait(&pending, &lock);
    if (waitingCount == 0) { pthread_mutex_unlock(&lock); return NULL; }
    int count = waitingCount;
    memcpy(taken, waiting, sizeof(int) * count);
    waitingCount = 0;
    pthread_mutex_unlock(&lock);
    if (fdatasync(walFD) != 0) { perror("ideal-hub: fdatasync"); exit(1); }
    for (int k = 0; k < count; k++) reply(taken[k]);
  }
}

/* One request of writer `index`: what every hub does for a one-row transaction. */
static void apply(int index, const char *request) {
  char id[48], stored[96], event[192];
  long i = atol(strchr(request, ' ') + 1);
  sequence++;
  snprintf(id, sizeof id, "%012lx-%02d-%016ld", (long)(now() * 1000), index, i);
  sqlite3_bind_text(lookUp, 1, id, -1, SQLITE_STATIC);
  if (sqlite3_step(lookUp) == SQLITE_ROW) { fprintf(stderr, "ideal-hub: duplicate\n"); exit(1); }
  sqlite3_reset(lookUp);
  char key[64];
  snprintf(key, sizeof key, "w%d-%ld", index, i);
  sqlite3_bind_text(insertRow[index], 1, key, -1, SQLITE_STATIC);
  step(hubDB, insertRow[index]);
  snprintf(event, sizeof event,
           "{\"type\":\"commit\",\"hub\":\"ideal\",\"seq\":%ld,\"plugin\":\"w%d\",\"request\":\"%s\","
           "\"changes\":{\"tables\":[\"w%d\"]}}", sequence, index, id, index);
  sqlite3_bind_int64(insertFeed, 1, sequence);
  sqlite3_bind_int64(insertFeed, 2, (long)(now() * 1000));
  sqlite3_bind_int(insertFeed, 3, index);
  sqlite3_bind_text(insertFeed, 4, id, -1, SQLITE_STATIC);
  sqlite3_bind_text(insertFeed, 5, event, -1, SQLITE_STATIC);
  step(hubDB, insertFeed);
  snprintf(stored, sizeof stored, "{\"type\":\"committed\",\"id\":\"%s\",\"seq\":%ld}", id, sequence);
  sqlite3_bind_text(insertRecord, 1, id, -1, SQLITE_STATIC);
  sqlite3_bind_int(insertRecord, 2, index);
  sqlite3_bind_int64(insertRecord, 3, sequence);
  sqlite3_bind_text(insertRecord, 4, stored, -1, SQLITE_STATIC);
  sqlite3_bind_int64(insertRecord, 5, (long)(now() * 1000));
  step(hubDB, insertRecord);
}

static void hub(const char *database, const char *socketPath, int writers) {
  check(sqlite3_open(database, &hubDB), NULL, "open");
  run(hubDB, pipelined ? "PRAGMA synchronous = NORMAL" : "PRAGMA synchronous = FULL");
  run(hubDB,
      "CREATE TABLE IF NOT EXISTS feed (seq INTEGER PRIMARY KEY, at INTEGER NOT NULL, "
      "plugin TEXT NOT NULL, request TEXT NOT NULL, event TEXT NOT NULL);"
      "CREATE TABLE IF NOT EXISTS requests (id TEXT PRIMARY KEY, plugin TEXT NOT NULL, "
      "seq INTEGER NOT NULL, reply TEXT NOT NULL, at INTEGER NOT NULL) WITHOUT ROWID");
  for (int index = 0; index < writers; index++) {
    char sql[160];
    snprintf(sql, sizeof sql, "CREATE TABLE IF NOT EXISTS w%d (id INTEGER PRIMARY KEY, key TEXT NOT NULL)", index);
    run(hubDB, sql);
    snprintf(sql, sizeof sql, "INSERT INTO w%d (key) VALUES (?)", index);
    insertRow[index] = prepare(hubDB, sql);
  }
  lookUp = prepare(hubDB, "SELECT reply FROM requests WHERE id = ?");
  insertFeed = prepare(hubDB, "INSERT INTO feed (seq, at, plugin, request, event) VALUES (?, ?, ?, ?, ?)");
  insertRecord = prepare(hubDB, "INSERT INTO requests (id, plugin, seq, reply, at) VALUES (?, ?, ?, ?, ?)");
  beginStatement = prepare(hubDB, "BEGIN IMMEDIATE");
  commitStatement = prepare(hubDB, "COMMIT");
  step(hubDB, beginStatement);
  step(hubDB, commitStatement);

  int listener = socket(AF_UNIX, SOCK_STREAM, 0);
  struct sockaddr_un address = {.sun_family = AF_UNIX};
  strncpy(address.sun_path, socketPath, sizeof address.sun_path - 1);
  if (bind(listener, (struct sockaddr *)&address, sizeof address) != 0 || listen(listener, 64) != 0) {
    perror("ideal-hub: listen");
    exit(1);
  }
  struct pollfd fds[maxWriters];
  for (int index = 0; index < writers; index++) {
    fds[index].fd = accept(listener, NULL, NULL);
    fds[index].events = POLLIN;
  }
  pthread_t syncing;
  if (pipelined) {
    char path[4200];
    snprintf(path, sizeof path, "%s-wal", database);
    walFD = open(path, O_RDWR);
    if (walFD < 0) { perror("ideal-hub: open the log"); exit(1); }
    pthread_create(&syncing, NULL, syncer, NULL);
  }
  int connected = writers, group[maxWriters];
  char request[requestBytes];
  while (connected > 0) {
    if (poll(fds, writers, -1) < 0 && errno != EINTR) { perror("ideal-hub: poll"); exit(1); }
    int count = 0;
    for (int index = 0; index < writers; index++) {
      if (fds[index].fd < 0 || !(fds[index].revents & (POLLIN | POLLHUP))) continue;
      if (!fullRead(fds[index].fd, request, sizeof request)) {
        close(fds[index].fd);
        fds[index].fd = -1;
        connected--;
        continue;
      }
      if (count == 0) step(hubDB, beginStatement);
      apply(index, request);
      group[count++] = fds[index].fd;
    }
    if (count == 0) continue;
    step(hubDB, commitStatement);
    if (pipelined) {
      pthread_mutex_lock(&lock);
      memcpy(waiting + waitingCount, group, sizeof(int) * count);
      waitingCount += count;
      pthread_cond_signal(&pending);
      pthread_mutex_unlock(&lock);
    } else {
      for (int k = 0; k < count; k++) reply(group[k]);
    }
  }
  if (pipelined) {
    pthread_mutex_lock(&lock);
    stopping = 1;
    pthread_cond_signal(&pending);
    pthread_mutex_unlock(&lock);
    pthread_join(syncing, NULL);
  }
  sqlite3_close_v2(hubDB);
  struct rusage usage;
  getrusage(RUSAGE_SELF, &usage);
  char path[4200];
  snprintf(path, sizeof path, "%s.cpu", database);
  FILE *file = fopen(path, "w");
  fprintf(file, "%.0f\n",
          (usage.ru_utime.tv_sec + usage.ru_stime.tv_sec + (usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) * 1e-6) /
              sequence * 1e6);
  fclose(file);
}

static int ascending(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

/* ideal-hub MODE WRITERS WARM SECONDS DIRECTORY: prints "tx/s p50-µs p99-µs". */
int main(int argc, char **argv) {
  if (argc != 6) { fprintf(stderr, "usage: ideal-hub MODE WRITERS WARM SECONDS DIR\n"); return 2; }
  const char *mode = argv[1], *directory = argv[5];
  int writers = atoi(argv[2]);
  double warm = atof(argv[3]), seconds = atof(argv[4]);
  int direct = strcmp(mode, "direct") == 0;
  pipelined = strcmp(mode, "pipelined") == 0;
  char database[4096], socketPath[4096];
  snprintf(database, sizeof database, "%s/db.sqlite", directory);
  snprintf(socketPath, sizeof socketPath, "%s/hub.sock", directory);
  sqlite3 *db;
  check(sqlite3_open(database, &db), NULL, "open");
  run(db, "PRAGMA journal_mode = WAL");
  sqlite3_close(db);

  double start = now() + 0.5, from = start + warm, to = from + seconds;
  pid_t hubProcess = 0, children[maxWriters];
  if (!direct && (hubProcess = fork()) == 0) {
    hub(database, socketPath, writers);
    _exit(0);
  }
  for (int index = 0; index < writers; index++) {
    if ((children[index] = fork()) == 0) {
      char out[4200];
      snprintf(out, sizeof out, "%s/w%d.lat", directory, index);
      if (direct) directWriter(database, index, start, from, to, out);
      else hubWriter(socketPath, index, start, from, to, out);
      _exit(0);
    }
  }
  int failed = 0, status;
  for (int index = 0; index < writers; index++) {
    waitpid(children[index], &status, 0);
    failed |= !WIFEXITED(status) || WEXITSTATUS(status) != 0;
  }
  if (hubProcess) {
    waitpid(hubProcess, &status, 0);
    failed |= !WIFEXITED(status) || WEXITSTATUS(status) != 0;
  }
  if (failed) { fprintf(stderr, "ideal-hub: a process failed\n"); return 1; }

  double *all = malloc(sizeof(double) * maxSamples * (size_t)writers);
  long total = 0;
  for (int index = 0; index < writers; index++) {
    char out[4200];
    snprintf(out, sizeof out, "%s/w%d.lat", directory, index);
    FILE *file = fopen(out, "rb");
    total += fread(all + total, sizeof(double), maxSamples, file);
    fclose(file);
  }
  qsort(all, total, sizeof(double), ascending);
  double cpu = 0;
  char path[4200];
  snprintf(path, sizeof path, "%s.cpu", database);
  FILE *file = fopen(path, "r");
  if (file) { fscanf(file, "%lf", &cpu); fclose(file); }
  printf("%.0f %.0f %.0f %.0f\n", total / seconds, all[total / 2] * 1e6,
         all[(long)(0.99 * (total - 1))] * 1e6, cpu);
  return 0;
}
