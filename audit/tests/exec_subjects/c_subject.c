/* A correct cuckoo-audit exec subject in C (audit/PROTOCOL.md, version 1), for the tests
 * and for measuring the auditor's pipelined throughput.
 *
 *     c_subject set|filter [CAPACITY]
 *
 * set: an exact set of byte strings. filter: an exact multiset with at most 8 copies of a
 * key (declared as f=16, b=4), which is a valid filter with no false positives. Both
 * refuse inserts past CAPACITY (default 1000) with `full`.
 *
 * Input is read in large chunks; the responses to every complete line are written when
 * no more input is buffered, so the auditor's pipelined requests cost one read and one
 * write per batch. */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

typedef struct Node {
  struct Node* next;
  uint64_t hash;
  uint32_t copies;
  size_t size;
  unsigned char bytes[];
} Node;

static Node** table;
static size_t table_size;  /* a power of two */
static uint64_t stored;    /* copies (filter) or keys (set) */
static uint64_t capacity = 1000;
static int is_filter;

static char* out;
static size_t out_len, out_cap;

static void die(const char* what) {
  fprintf(stderr, "c_subject: %s: %s\n", what, strerror(errno));
  exit(70);
}

static void emit(const char* text, size_t n) {
  if (out_len + n + 1 > out_cap) {
    out_cap = (out_len + n + 1) * 2;
    out = realloc(out, out_cap);
    if (out == NULL) die("realloc");
  }
  memcpy(out + out_len, text, n);
  out_len += n;
  out[out_len++] = '\n';
}

static void say(const char* text) { emit(text, strlen(text)); }

static void flush_out(void) {
  size_t done = 0;
  while (done < out_len) {
    ssize_t n = write(1, out + done, out_len - done);
    if (n < 0) {
      if (errno == EINTR) continue;
      die("write");
    }
    done += (size_t)n;
  }
  out_len = 0;
}

static uint64_t hash_bytes(const unsigned char* p, size_t n) {
  uint64_t h = 0xcbf29ce484222325ULL;
  for (size_t i = 0; i < n; ++i) h = (h ^ p[i]) * 0x100000001b3ULL;
  return h ^ (h >> 29);
}

static void clear_all(void) {
  for (size_t i = 0; i < table_size; ++i) {
    Node* n = table[i];
    while (n != NULL) {
      Node* next = n->next;
      free(n);
      n = next;
    }
    table[i] = NULL;
  }
  stored = 0;
}

static Node** find(const unsigned char* key, size_t n, uint64_t h) {
  Node** at = &table[h & (table_size - 1)];
  while (*at != NULL && !((*at)->hash == h && (*at)->size == n && memcmp((*at)->bytes, key, n) == 0)) {
    at = &(*at)->next;
  }
  return at;
}

static int hex_value(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

/* Decodes "xHEX" in place; returns the byte count or -1. */
static long decode_key(char* text, size_t n) {
  if (n == 0 || text[0] != 'x' || (n - 1) % 2 != 0) return -1;
  unsigned char* bytes = (unsigned char*)text;
  for (size_t i = 1; i + 1 < n; i += 2) {
    int hi = hex_value(text[i]);
    int lo = hex_value(text[i + 1]);
    if (hi < 0 || lo < 0) return -1;
    bytes[(i - 1) / 2] = (unsigned char)(hi * 16 + lo);
  }
  return (long)((n - 1) / 2);
}

/* Serves one request line; returns 0 after `close`. */
static int serve(char* line, size_t n) {
  if (n > 0 && line[n - 1] == '\r') --n;
  char* space = memchr(line, ' ', n);
  size_t op_len = space != NULL ? (size_t)(space - line) : n;
  if (op_len == 3 && memcmp(line, "new", 3) == 0) {
    clear_all();
    say("ok");
    return 1;
  }
  if (op_len == 4 && memcmp(line, "size", 4) == 0) {
    char text[32];
    snprintf(text, sizeof text, "%llu", (unsigned long long)stored);
    say(text);
    return 1;
  }
  if (op_len == 5 && memcmp(line, "clear", 5) == 0) {
    clear_all();
    say("ok");
    return 1;
  }
  if (op_len == 5 && memcmp(line, "close", 5) == 0) {
    say("bye");
    return 0;
  }
  if (space == NULL) {
    say("error unknown request");
    return 1;
  }
  char* key_text = space + 1;
  long size = decode_key(key_text, n - op_len - 1);
  if (size < 0) {
    say("error bad key");
    return 1;
  }
  const unsigned char* key = (const unsigned char*)key_text;
  uint64_t h = hash_bytes(key, (size_t)size);
  Node** at = find(key, (size_t)size, h);
  if (op_len == 8 && memcmp(line, "contains", 8) == 0) {
    say(*at != NULL ? "yes" : "no");
  } else if (op_len == 6 && memcmp(line, "insert", 6) == 0) {
    if (*at != NULL && !is_filter) {
      say("exists");
    } else if (*at != NULL && (*at)->copies >= 8) {
      say("duplicate_limit");
    } else if (stored >= capacity) {
      say("full");
    } else if (*at != NULL) {
      ++(*at)->copies;
      ++stored;
      say("inserted");
    } else {
      Node* node = malloc(sizeof(Node) + (size_t)size);
      if (node == NULL) die("malloc");
      node->next = NULL;
      node->hash = h;
      node->copies = 1;
      node->size = (size_t)size;
      memcpy(node->bytes, key, (size_t)size);
      *at = node;
      ++stored;
      say("inserted");
    }
  } else if (op_len == 5 && memcmp(line, "erase", 5) == 0) {
    if (*at == NULL) {
      say("no");
    } else {
      --stored;
      if (--(*at)->copies == 0) {
        Node* gone = *at;
        *at = gone->next;
        free(gone);
      }
      say("yes");
    }
  } else {
    say("error unknown request");
  }
  return 1;
}

int main(int argc, char** argv) {
  if (argc < 2 || (strcmp(argv[1], "set") != 0 && strcmp(argv[1], "filter") != 0)) {
    fprintf(stderr, "usage: c_subject set|filter [CAPACITY]\n");
    return 64;
  }
  is_filter = strcmp(argv[1], "filter") == 0;
  if (argc > 2) capacity = strtoull(argv[2], NULL, 10);
  table_size = 1;
  while (table_size < 2 * capacity + 16) table_size *= 2;
  table = calloc(table_size, sizeof *table);
  if (table == NULL) die("calloc");

  char hello[160];
  if (is_filter) {
    snprintf(hello, sizeof hello,
             "cuckoo-audit-subject 1 kind=filter name=c.filter capacity=%llu fingerprint_bits=16 "
             "slots_per_bucket=4",
             (unsigned long long)capacity);
  } else {
    snprintf(hello, sizeof hello, "cuckoo-audit-subject 1 kind=set name=c.set capacity=%llu",
             (unsigned long long)capacity);
  }
  say(hello);
  flush_out();

  size_t in_cap = 1 << 20, in_len = 0;
  char* in = malloc(in_cap);
  if (in == NULL) die("malloc");
  for (;;) {
    if (in_len == in_cap) {
      in_cap *= 2;
      in = realloc(in, in_cap);
      if (in == NULL) die("realloc");
    }
    ssize_t got = read(0, in + in_len, in_cap - in_len);
    if (got < 0) {
      if (errno == EINTR) continue;
      die("read");
    }
    if (got == 0) break;
    in_len += (size_t)got;
    size_t start = 0;
    for (;;) {
      char* nl = memchr(in + start, '\n', in_len - start);
      if (nl == NULL) break;
      size_t n = (size_t)(nl - (in + start));
      if (!serve(in + start, n)) {
        flush_out();
        return 0;
      }
      start += n + 1;
    }
    memmove(in, in + start, in_len - start);
    in_len -= start;
    flush_out();
  }
  flush_out();
  return 0;
}
