/* A partial-key cuckoo filter served over the `cuckoo-audit exec` protocol, version 1
 * (audit/PROTOCOL.md). C11, libc and POSIX read/write only.
 *
 *   cc -O2 -std=c11 -Wall -Wextra -o cuckoo_filter cuckoo_filter.c
 *   ./cuckoo_filter [--capacity N] [--fingerprint-bits F] [--slots B] [--identity]
 *                   [--broken MODE]
 *
 * The filter (Fan et al. 2014): a power-of-two number n >= 2 of buckets of B slots, an
 * F-bit fingerprint per item, never 0. A key's bytes are hashed with 64-bit FNV-1a and
 * two rounds of a 64-bit finalizer (fixed seed); the hash gives the fingerprint fp
 * (uniform over 1..2^F-1) and the first bucket i1. The alternate bucket is i XOR c(fp)
 * with c(fp) in 1..n-1: an involution that never maps a bucket to itself, so an item
 * always has two distinct buckets and 2B slots and the copy limit is exactly 2B. An
 * insert that finds both buckets full does a random walk of at most MAX_KICKS evictions;
 * if it fails, the walk is undone swap by swap and the insert answers `full` with the
 * table exactly as before. The kick generator is reseeded by `new`, so a trace replays
 * identically.
 *
 * --identity declares identity=yes and answers `identity KEY` with `item FP-BUCKET`: the
 * fingerprint and the smaller of the two buckets, which two keys share exactly when the
 * filter cannot tell them apart.
 *
 * I/O: stdin is read in large chunks with read(2); every complete line in the buffer is
 * answered into an output buffer, which is written out before the next read that may
 * block (and whenever it grows past OUT_FLUSH bytes), as the protocol allows.
 *
 * --broken MODE plants one bug (see README.md for the claim each one breaks):
 *   lose-on-kick-failure  a failed kick walk is not undone: the fingerprint evicted last
 *                         is dropped and the insert still answers `full`
 *   long-key-hash         only the first 8 bytes of a key are hashed
 *   crash-on-empty-key    the hash loop is a do-while that reads the first byte before
 *                         testing the length; an empty key is decoded to a NULL pointer,
 *                         so the empty key `x` dies with SIGSEGV
 *   kick-wrong-bucket     a kicked fingerprint's next bucket comes from another hash of
 *                         it than the one lookups use: the item lands in a bucket its
 *                         lookups never check, and the insert still answers `inserted`
 *   short-fingerprint     fingerprints keep 4 bits fewer than the F declared (at least 2):
 *                         the false-positive rate is about 16 times the promised one
 */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

enum { PROTOCOL_VERSION = 1, MAX_KICKS = 500, OUT_FLUSH = 1 << 16, READ_CHUNK = 1 << 16 };
static const uint64_t KICK_SEED = 0x6375636B6F6FULL; /* "cuckoo" */
static const uint64_t HASH_SEED = 0x9AE16A3B2F90404FULL;

enum broken {
  BROKEN_NONE,
  BROKEN_LOSE_ON_KICK_FAILURE,
  BROKEN_LONG_KEY_HASH,
  BROKEN_CRASH_ON_EMPTY_KEY,
  BROKEN_KICK_WRONG_BUCKET,
  BROKEN_SHORT_FINGERPRINT,
  BROKEN_MODES
};
static const char *const broken_names[] = {"", "lose-on-kick-failure", "long-key-hash", "crash-on-empty-key",
                                           "kick-wrong-bucket", "short-fingerprint"};

/* ---- output --------------------------------------------------------------------- */

static char *out_buf;
static size_t out_len, out_cap;

static void out_flush(void) {
  size_t done = 0;
  while (done < out_len) {
    ssize_t w = write(STDOUT_FILENO, out_buf + done, out_len - done);
    if (w < 0) {
      if (errno == EINTR) continue;
      exit(1); /* the auditor went away */
    }
    done += (size_t)w;
  }
  out_len = 0;
}

static void out_put(const char *s, size_t n) {
  if (out_len + n > out_cap) {
    while (out_len + n > out_cap) out_cap = out_cap ? 2 * out_cap : 2 * OUT_FLUSH;
    out_buf = realloc(out_buf, out_cap);
    if (!out_buf) abort();
  }
  memcpy(out_buf + out_len, s, n);
  out_len += n;
}

static void out_str(const char *s) { out_put(s, strlen(s)); }

/* ---- the filter ------------------------------------------------------------------- */

struct filter {
  uint32_t *table; /* n * b slots; bucket i is table[i*b .. i*b+b); 0 = empty */
  uint64_t n, mask, count, rng;
  unsigned b, max_copies;
  uint32_t fp_mod; /* 2^F - 1 */
  enum broken broken;
  size_t path[MAX_KICKS];
};

static uint64_t mix64(uint64_t x) { /* murmur3 fmix64 */
  x ^= x >> 33;
  x *= 0xFF51AFD7ED558CCDULL;
  x ^= x >> 33;
  x *= 0xC4CEB9FE1A85EC53ULL;
  x ^= x >> 33;
  return x;
}

static uint64_t next_random(struct filter *f) { /* xorshift64* */
  f->rng ^= f->rng >> 12;
  f->rng ^= f->rng << 25;
  f->rng ^= f->rng >> 27;
  return f->rng * 0x2545F4914F6CDD1DULL;
}

static double load_target(unsigned b) { return b == 1 ? 0.45 : b == 2 ? 0.8 : 0.9; }

/* Buckets for `capacity` items (a power of two >= 2) and the fingerprint bits stored. */
static uint64_t bucket_count_for(uint64_t capacity, unsigned b) {
  uint64_t n = 2;
  while ((double)n * b * load_target(b) < (double)capacity) n *= 2;
  return n;
}

static unsigned stored_bits(unsigned fbits, enum broken broken) {
  if (broken == BROKEN_SHORT_FINGERPRINT) return fbits > 6 ? fbits - 4 : 2; /* BUG: not the F declared */
  return fbits;
}

static void filter_init(struct filter *f, uint64_t capacity, unsigned fbits, unsigned b, enum broken broken) {
  uint64_t n = bucket_count_for(capacity, b);
  f->table = calloc(n * b, sizeof *f->table);
  if (!f->table) {
    fprintf(stderr, "cuckoo_filter: cannot allocate %llu buckets\n", (unsigned long long)n);
    exit(1);
  }
  f->n = n;
  f->mask = n - 1;
  f->count = 0;
  f->rng = KICK_SEED;
  f->b = b;
  f->max_copies = 2 * b;
  f->fp_mod = (uint32_t)((1ULL << stored_bits(fbits, broken)) - 1);
  f->broken = broken;
}

static uint64_t hash_key(const struct filter *f, const unsigned char *key, size_t len) {
  uint64_t h = 0xCBF29CE484222325ULL ^ HASH_SEED;
  if (f->broken == BROKEN_LONG_KEY_HASH && len > 8) len = 8; /* BUG: only the first 8 bytes */
  if (f->broken == BROKEN_CRASH_ON_EMPTY_KEY) {
    /* BUG: a do-while reads key[0] before testing the length (NULL for the empty key). */
    const volatile unsigned char *p = key;
    size_t i = 0;
    do {
      h = (h ^ p[i]) * 0x100000001B3ULL;
    } while (++i < len);
  } else {
    for (size_t i = 0; i < len; ++i) h = (h ^ key[i]) * 0x100000001B3ULL;
  }
  return h ^ len;
}

static void locate(const struct filter *f, const unsigned char *key, size_t len, uint32_t *fp, uint64_t *i1) {
  uint64_t h1 = mix64(hash_key(f, key, len));
  uint64_t h2 = mix64(h1 ^ 0x9E3779B97F4A7C15ULL);
  *fp = (uint32_t)((h1 & 0xFFFFFFFFULL) % f->fp_mod) + 1;
  *i1 = h2 & f->mask;
}

static uint64_t alt(const struct filter *f, uint64_t i, uint32_t fp) {
  /* c(fp) in 1..n-1 (n a power of two >= 2): i ^ c stays in range and is never i. */
  return i ^ ((((uint64_t)fp * 0x9E3779B97F4A7C15ULL) >> 32) % f->mask + 1);
}

static int bucket_put(struct filter *f, uint64_t i, uint32_t fp) {
  uint32_t *s = f->table + i * f->b;
  for (unsigned k = 0; k < f->b; ++k) {
    if (s[k] == 0) {
      s[k] = fp;
      ++f->count;
      return 1;
    }
  }
  return 0;
}

static unsigned bucket_count(const struct filter *f, uint64_t i, uint32_t fp) {
  const uint32_t *s = f->table + i * f->b;
  unsigned c = 0;
  for (unsigned k = 0; k < f->b; ++k) c += s[k] == fp;
  return c;
}

static int bucket_has(const struct filter *f, uint64_t i, uint32_t fp) {
  const uint32_t *s = f->table + i * f->b;
  for (unsigned k = 0; k < f->b; ++k)
    if (s[k] == fp) return 1;
  return 0;
}

static const char *filter_insert(struct filter *f, const unsigned char *key, size_t len) {
  uint32_t fp;
  uint64_t i1;
  locate(f, key, len, &fp, &i1);
  uint64_t i2 = alt(f, i1, fp);
  if (bucket_count(f, i1, fp) + bucket_count(f, i2, fp) >= f->max_copies) return "duplicate_limit\n";
  if (bucket_put(f, i1, fp) || bucket_put(f, i2, fp)) return "inserted\n";
  /* Both buckets full: random walk, remembering every slot it swapped. */
  uint64_t i = (next_random(f) & 1) ? i1 : i2;
  uint32_t carry = fp;
  for (unsigned k = 0; k < MAX_KICKS; ++k) {
    size_t p = (size_t)(i * f->b + next_random(f) % f->b);
    f->path[k] = p;
    uint32_t evicted = f->table[p];
    f->table[p] = carry;
    carry = evicted;
    if (f->broken == BROKEN_KICK_WRONG_BUCKET) {
      /* BUG: another multiplier than alt()'s: the kicked item leaves its bucket pair. */
      i ^= (((uint64_t)carry * 0xC2B2AE3D27D4EB4FULL) >> 32) % f->mask + 1;
    } else {
      i = alt(f, i, carry);
    }
    if (bucket_put(f, i, carry)) return "inserted\n";
  }
  if (f->broken != BROKEN_LOSE_ON_KICK_FAILURE) {
    /* Undo: each swap is its own inverse; undone in reverse order, the table is back to
     * what it was and carry is the new item's fingerprint again. */
    for (unsigned k = MAX_KICKS; k-- > 0;) {
      size_t p = f->path[k];
      uint32_t t = f->table[p];
      f->table[p] = carry;
      carry = t;
    }
  }
  /* (lose-on-kick-failure: BUG: the new item stays in the table and `carry`, a
   * fingerprint stored before, is dropped.) */
  return "full\n";
}

static int filter_contains(const struct filter *f, const unsigned char *key, size_t len) {
  uint32_t fp;
  uint64_t i1;
  locate(f, key, len, &fp, &i1);
  return bucket_has(f, i1, fp) || bucket_has(f, alt(f, i1, fp), fp);
}

static int filter_erase(struct filter *f, const unsigned char *key, size_t len) {
  uint32_t fp;
  uint64_t i1;
  locate(f, key, len, &fp, &i1);
  uint64_t buckets[2] = {i1, alt(f, i1, fp)};
  for (int j = 0; j < 2; ++j) {
    uint32_t *s = f->table + buckets[j] * f->b;
    for (unsigned k = 0; k < f->b; ++k) {
      if (s[k] == fp) {
        s[k] = 0;
        --f->count;
        return 1;
      }
    }
  }
  return 0;
}

static void filter_clear(struct filter *f) {
  memset(f->table, 0, f->n * f->b * sizeof *f->table);
  f->count = 0;
}

/* ---- requests --------------------------------------------------------------------- */

static signed char hex_value[256];
static unsigned char *key_buf;
static size_t key_cap;

/* Decodes `xHEX` into key_buf. Returns 0 if malformed. An empty key decodes to a NULL
 * pointer (nothing to point at), which the correct code never dereferences. */
static int parse_key(const char *field, size_t n, const unsigned char **key, size_t *len) {
  if (n == 0 || field[0] != 'x' || (n - 1) % 2 != 0) return 0;
  size_t bytes = (n - 1) / 2;
  if (bytes > key_cap) {
    key_cap = bytes * 2;
    key_buf = realloc(key_buf, key_cap);
    if (!key_buf) abort();
  }
  for (size_t k = 0; k < bytes; ++k) {
    int hi = hex_value[(unsigned char)field[1 + 2 * k]], lo = hex_value[(unsigned char)field[2 + 2 * k]];
    if (hi < 0 || lo < 0) return 0;
    key_buf[k] = (unsigned char)(hi << 4 | lo);
  }
  *key = bytes ? key_buf : NULL;
  *len = bytes;
  return 1;
}

static int is(const char *word, const char *s, size_t n) { return strlen(word) == n && memcmp(word, s, n) == 0; }

static void error_unknown(const char *line, size_t n) {
  char text[41];
  size_t k = 0;
  for (; k < n && k < 40; ++k) text[k] = (line[k] >= ' ' && line[k] <= '~') ? line[k] : '?';
  text[k] = '\0';
  out_str("error unknown request: ");
  out_str(text);
  out_str("\n");
}

struct options {
  uint64_t capacity;
  unsigned fbits, slots;
  enum broken broken;
  int identity;
};

/* Answers one request line (without its '\n'). Returns 1 after `close`. */
static int serve_line(const struct options *o, struct filter *f, int *have, char *line, size_t n) {
  if (n > 0 && line[n - 1] == '\r') --n;
  const char *sp = memchr(line, ' ', n);
  size_t cmd_len = sp ? (size_t)(sp - line) : n;
  const char *arg = sp ? sp + 1 : NULL;
  size_t arg_len = sp ? n - cmd_len - 1 : 0;

  int is_insert = is("insert", line, cmd_len), is_contains = is("contains", line, cmd_len),
      is_erase = is("erase", line, cmd_len);
  if (is_insert || is_contains || is_erase) {
    const unsigned char *key;
    size_t len;
    if (!arg || !parse_key(arg, arg_len, &key, &len)) {
      out_str("error bad key: expected x followed by hex byte pairs\n");
    } else if (!*have) {
      out_str("error no instance: send new first\n");
    } else if (is_contains) {
      out_str(filter_contains(f, key, len) ? "yes\n" : "no\n");
    } else if (is_insert) {
      out_str(filter_insert(f, key, len));
    } else {
      out_str(filter_erase(f, key, len) ? "yes\n" : "no\n");
    }
    return 0;
  }
  if (o->identity && is("identity", line, cmd_len)) {
    const unsigned char *key;
    size_t len;
    if (!arg || !parse_key(arg, arg_len, &key, &len)) {
      out_str("error bad key: expected x followed by hex byte pairs\n");
    } else {
      /* An item depends on the key alone: the hash and the bucket count, not the contents. */
      struct filter probe = {0};
      probe.mask = bucket_count_for(o->capacity, o->slots) - 1;
      probe.fp_mod = (uint32_t)((1ULL << stored_bits(o->fbits, o->broken)) - 1);
      probe.broken = o->broken;
      uint32_t fp;
      uint64_t i1;
      locate(&probe, key, len, &fp, &i1);
      uint64_t i2 = alt(&probe, i1, fp);
      char item[64];
      int k = snprintf(item, sizeof item, "item %x-%llx\n", (unsigned)fp,
                       (unsigned long long)(i1 < i2 ? i1 : i2));
      out_put(item, (size_t)k);
    }
    return 0;
  }
  if (!arg && is("new", line, cmd_len)) {
    if (*have) free(f->table);
    filter_init(f, o->capacity, o->fbits, o->slots, o->broken);
    *have = 1;
    out_str("ok\n");
    return 0;
  }
  if (!arg && (is("size", line, cmd_len) || is("clear", line, cmd_len))) {
    if (!*have) {
      out_str("error no instance: send new first\n");
    } else if (line[0] == 's') {
      char num[24];
      int k = snprintf(num, sizeof num, "%llu\n", (unsigned long long)f->count);
      out_put(num, (size_t)k);
    } else {
      filter_clear(f);
      out_str("ok\n");
    }
    return 0;
  }
  if (!arg && is("close", line, cmd_len)) {
    out_str("bye\n");
    return 1;
  }
  error_unknown(line, n);
  return 0;
}

static void usage(const char *why) {
  fprintf(stderr,
          "cuckoo_filter: %s\n"
          "usage: cuckoo_filter [--capacity N] [--fingerprint-bits F (1..32)] [--slots B (1..64)]\n"
          "                     [--identity]\n"
          "                     [--broken lose-on-kick-failure|long-key-hash|crash-on-empty-key|\n"
          "                               kick-wrong-bucket|short-fingerprint]\n",
          why);
  exit(2);
}

static uint64_t parse_number(const char *s, uint64_t lo, uint64_t hi, const char *what) {
  char *end;
  errno = 0;
  unsigned long long v = strtoull(s, &end, 10);
  if (errno || end == s || *end || s[0] == '-' || v < lo || v > hi) {
    char msg[128];
    snprintf(msg, sizeof msg, "%s must be an integer in %llu..%llu", what, (unsigned long long)lo,
             (unsigned long long)hi);
    usage(msg);
  }
  return v;
}

int main(int argc, char **argv) {
  struct options o = {1000, 12, 4, BROKEN_NONE, 0};
  for (int a = 1; a < argc; ++a) {
    const char *opt = argv[a];
    if (strcmp(opt, "--identity") == 0) {
      o.identity = 1;
      continue;
    }
    const char *val = strchr(opt, '=');
    size_t opt_len = val ? (size_t)(val - opt) : strlen(opt);
    if (val) {
      ++val;
    } else if (a + 1 < argc) {
      val = argv[++a];
    } else {
      usage("missing value");
    }
    if (is("--capacity", opt, opt_len)) {
      o.capacity = parse_number(val, 1, 1ULL << 40, "--capacity");
    } else if (is("--fingerprint-bits", opt, opt_len)) {
      o.fbits = (unsigned)parse_number(val, 1, 32, "--fingerprint-bits");
    } else if (is("--slots", opt, opt_len)) {
      o.slots = (unsigned)parse_number(val, 1, 64, "--slots");
    } else if (is("--broken", opt, opt_len)) {
      o.broken = BROKEN_NONE;
      for (int m = 1; m < BROKEN_MODES; ++m)
        if (strcmp(val, broken_names[m]) == 0) o.broken = (enum broken)m;
      if (o.broken == BROKEN_NONE) usage("unknown --broken mode");
    } else {
      usage("unknown option");
    }
  }

  memset(hex_value, -1, sizeof hex_value);
  for (int d = 0; d < 10; ++d) hex_value['0' + d] = (signed char)d;
  for (int d = 0; d < 6; ++d) hex_value['a' + d] = hex_value['A' + d] = (signed char)(10 + d);

  char hello[256];
  int k = snprintf(hello, sizeof hello,
                   "cuckoo-audit-subject %d kind=filter name=c.cuckoo_filter%s%s capacity=%llu "
                   "fingerprint_bits=%u slots_per_bucket=%u max_copies=%u deletes=yes size=exact clear=yes%s\n",
                   PROTOCOL_VERSION, o.broken ? ".broken." : "", broken_names[o.broken],
                   (unsigned long long)o.capacity, o.fbits, o.slots, 2 * o.slots,
                   o.identity ? " identity=yes" : "");
  out_put(hello, (size_t)k);
  out_flush();

  struct filter f;
  int have = 0;
  size_t in_cap = 2 * READ_CHUNK, in_start = 0, in_end = 0;
  char *in = malloc(in_cap);
  if (!in) abort();
  int closed = 0;
  for (;;) {
    /* Answer every complete line in the buffer. */
    char *nl;
    while ((nl = memchr(in + in_start, '\n', in_end - in_start)) != NULL) {
      size_t n = (size_t)(nl - (in + in_start));
      if (serve_line(&o, &f, &have, in + in_start, n)) {
        closed = 1;
        break;
      }
      in_start += n + 1;
      if (out_len >= OUT_FLUSH) out_flush();
    }
    /* Nothing left to answer (or `close`): flush before a read that may block. */
    out_flush();
    if (closed) break;
    if (in_start > 0) { /* keep the incomplete line at the front */
      memmove(in, in + in_start, in_end - in_start);
      in_end -= in_start;
      in_start = 0;
    }
    if (in_cap - in_end < READ_CHUNK) {
      in_cap *= 2;
      in = realloc(in, in_cap);
      if (!in) abort();
    }
    ssize_t r = read(STDIN_FILENO, in + in_end, in_cap - in_end);
    if (r < 0) {
      if (errno == EINTR) continue;
      break;
    }
    if (r == 0) { /* stdin closed without `close`: answer a last unterminated line */
      if (in_end > in_start) serve_line(&o, &f, &have, in + in_start, in_end - in_start);
      out_flush();
      break;
    }
    in_end += (size_t)r;
  }
  if (have) free(f.table);
  free(in);
  free(out_buf);
  free(key_buf);
  return 0;
}
