/* check_trace.c - the trace readers: exact accesses from every format, the
 * "file:line:" of every kind of bad line, auto-detection, real valgrind
 * traces, bounded memory, and garbage that must never crash. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "data/trace.h"
#include "tests/testutil.h"

/* ---- helpers ---------------------------------------------------------- */

typedef struct acc_list {
    cm_access *a;
    size_t n, cap;
} acc_list;

/* Reads the whole trace: 1 read to the end, 0 open failed, -1 read failed
 * (err says why); the accesses before an error are kept. */
static int read_all(const char *path, cm_trace_format fmt, uint32_t line,
                    acc_list *out, cm_err *err)
{
    cm_trace_opts o = {fmt, line};
    cm_trace *t = NULL;
    memset(out, 0, sizeof *out);
    if (cm_trace_open(path, &o, &t, err) != CM_OK) {
        ck_assert_ptr_null(t);
        return 0;
    }
    cm_access a;
    int got;
    while ((got = cm_trace_next(t, &a, err)) == 1) {
        if (out->n == out->cap) {
            out->cap = out->cap ? 2 * out->cap : 64;
            out->a = realloc(out->a, out->cap * sizeof *out->a);
            ck_assert_ptr_nonnull(out->a);
        }
        out->a[out->n++] = a;
    }
    ck_assert_int_ge(got, -1);
    if (got == 0) ck_assert_int_eq(cm_trace_next(t, &a, err), 0);
    cm_trace_close(t);
    return got == 0 ? 1 : -1;
}

static char *write_bytes(const char *dir, const char *name, const void *buf,
                         size_t len)
{
    char *path = tu_path_in(dir, name);
    FILE *f = fopen(path, "wb");
    ck_assert_ptr_nonnull(f);
    ck_assert_uint_eq(fwrite(buf, 1, len, f), len);
    ck_assert_int_eq(fclose(f), 0);
    return path;
}

typedef struct want {
    uint8_t op;
    uint64_t addr;
    uint32_t size;
} want;

static void assert_accesses(const acc_list *l, const want *w, size_t n)
{
    ck_assert_uint_eq(l->n, n);
    for (size_t i = 0; i < n; i++)
        ck_assert_msg(l->a[i].op == w[i].op && l->a[i].addr == w[i].addr &&
                          l->a[i].size == w[i].size,
                      "access %zu: %s 0x%llx,%u, expected %s 0x%llx,%u", i,
                      cm_op_name(l->a[i].op),
                      (unsigned long long)l->a[i].addr, l->a[i].size,
                      cm_op_name(w[i].op), (unsigned long long)w[i].addr,
                      w[i].size);
}

/* Reads `text` as file `name` of format fmt and expects exactly the error
 * "<path><msg>" (msg starts at the ':' after the path). */
static void expect_error_n(const char *name, const char *text, size_t len,
                           cm_trace_format fmt, const char *msg)
{
    char *dir = tu_tmpdir();
    char *path = write_bytes(dir, name, text, len);
    acc_list l;
    cm_err err = {0};
    int r = read_all(path, fmt, 0, &l, &err);
    ck_assert_msg(r <= 0, "no error for %s", name);
    ck_assert_int_eq(err.code, CM_EINPUT);
    size_t k = strlen(path);
    ck_assert_msg(!strncmp(err.msg, path, k) && !strcmp(err.msg + k, msg),
                  "got '%s', expected '<path>%s'", err.msg, msg);
    free(l.a);
    free(path);
    tu_rm_tree(dir);
    free(dir);
}

static void expect_error(const char *name, const char *text,
                         cm_trace_format fmt, const char *msg)
{
    expect_error_n(name, text, strlen(text), fmt, msg);
}

static acc_list read_text(const char *name, const char *text,
                          cm_trace_format fmt, uint32_t line)
{
    char *dir = tu_tmpdir();
    char *path = tu_write_file(dir, name, text);
    acc_list l;
    cm_err err = {0};
    ck_assert_msg(read_all(path, fmt, line, &l, &err) == 1, "%s", err.msg);
    free(path);
    tu_rm_tree(dir);
    free(dir);
    return l;
}

static int same_access(const cm_access *a, const cm_access *b)
{
    return a->addr == b->addr && a->cycle == b->cycle && a->size == b->size &&
           a->sm == b->sm && a->warp == b->warp && a->kernel == b->kernel &&
           a->block == b->block && a->op == b->op;
}

static uint64_t lcg_next(uint64_t *s)
{
    *s = *s * 6364136223846793005ULL + 1442695040888963407ULL;
    return *s >> 24;
}

/* ---- names ------------------------------------------------------------ */

START_TEST(test_names)
{
    ck_assert_str_eq(cm_op_name(CM_OP_LOAD), "load");
    ck_assert_str_eq(cm_op_name(CM_OP_STORE), "store");
    ck_assert_str_eq(cm_op_name(CM_OP_MODIFY), "modify");
    ck_assert_str_eq(cm_op_name(CM_OP_ATOMIC), "atomic");
    ck_assert_str_eq(cm_op_name(CM_OP_COUNT), "?");
    static const char *const names[] = {"auto", "lackey", "din", "csv",
                                        "accel"};
    for (int i = 0; i < 5; i++) {
        cm_trace_format f = CM_TRACE_AUTO;
        cm_err err = {0};
        ck_assert_int_eq(cm_trace_format_parse(names[i], &f, &err), CM_OK);
        ck_assert_int_eq(f, i);
        ck_assert_str_eq(cm_trace_format_name(f), names[i]);
    }
    cm_trace_format f;
    cm_err err = {0};
    ck_assert_int_eq(cm_trace_format_parse("Lackey", &f, &err), CM_EINPUT);
    ck_assert_str_eq(err.msg, "unknown trace format 'Lackey' (expected auto, "
                              "lackey, din, csv or accel)");
    ck_assert_str_eq(cm_trace_format_name((cm_trace_format)9), "?");
}
END_TEST

/* ---- lackey ----------------------------------------------------------- */

START_TEST(test_lackey_good)
{
    const char *text = "==42== Lackey, an example Valgrind tool\n"
                       "==42== Command: ./a.out\n"
                       "==42== \n"
                       "--42-- a verbose line\n"
                       "I  04016b90,3\n"
                       "\n"
                       " L 04222cb8,8\n"
                       " S 1ffefffdb8,8\r\n"
                       "I  0401b770,1\n"
                       " M 0421d0a0,4\n"
                       " L ffffffffffffffff,4294967295\n"
                       "   \t\n"
                       "==42== \n"
                       " S 0000000000000000000000000,1";
    static const want w[] = {{CM_OP_LOAD, 0x4222cb8, 8},
                             {CM_OP_STORE, 0x1ffefffdb8, 8},
                             {CM_OP_MODIFY, 0x421d0a0, 4},
                             {CM_OP_LOAD, UINT64_MAX, UINT32_MAX},
                             {CM_OP_STORE, 0, 1}};
    acc_list l = read_text("t", text, CM_TRACE_LACKEY, 0);
    assert_accesses(&l, w, 5);
    for (size_t i = 0; i < l.n; i++)
        ck_assert(l.a[i].sm == 0 && l.a[i].warp == 0 && l.a[i].kernel == 0 &&
                  l.a[i].block == 0 && l.a[i].cycle == 0);
    free(l.a);
}
END_TEST

#define LACKEY_EXPECT ": expected ' L|S|M addr,size' or 'I addr,size'"

START_TEST(test_lackey_errors)
{
    static const char *const cases[][2] = {
        {"==1== x\n L 10,8\nhello\n", ":3" LACKEY_EXPECT},
        {" X 10,8\n", ":1" LACKEY_EXPECT},
        {" L 10\n", ":1" LACKEY_EXPECT},
        {" L 10,8 \n", ":1" LACKEY_EXPECT},
        {" L ,8\n", ":1" LACKEY_EXPECT},
        {" L 0x10,8\n", ":1" LACKEY_EXPECT},
        {" L 10,8x\n", ":1" LACKEY_EXPECT},
        {"  L 10,8\n", ":1" LACKEY_EXPECT},
        {"I  zz,3\n", ":1" LACKEY_EXPECT},
        {"I\n", ":1" LACKEY_EXPECT},
        {"=\n", ":1" LACKEY_EXPECT},
        {" L 10,8\n L 10,", ":2" LACKEY_EXPECT},
        {" L 10000000000000000,8\n", ":1: address over 64 bits"},
        {"I  10000000000000000,8\n", ":1: address over 64 bits"},
        {" S 10,0\n", ":1: size must be 1 to 4294967295"},
        {" S 10,4294967296\n", ":1: size must be 1 to 4294967295"},
        {" S 10,99999999999999999999\n", ":1: size must be 1 to 4294967295"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        expect_error("t", cases[i][0], CM_TRACE_LACKEY, cases[i][1]);
    static const char nul[] = " L 10,8\n L 1\0,8\n";
    expect_error_n("t", nul, sizeof nul - 1, CM_TRACE_LACKEY,
                   ":2: NUL byte: not a text file");
    /* The NUL check sees NULs in skipped lines too. */
    static const char nul2[] = "==1== \0\n";
    expect_error_n("t", nul2, sizeof nul2 - 1, CM_TRACE_LACKEY,
                   ":1: NUL byte: not a text file");
}
END_TEST

START_TEST(test_errors_are_sticky)
{
    char *dir = tu_tmpdir();
    char *path = tu_write_file(dir, "t", " L 10,8\nbad\n S 20,4\n");
    cm_trace *t;
    cm_err err = {0};
    cm_access a;
    ck_assert_int_eq(cm_trace_open(path, NULL, &t, &err), CM_OK);
    ck_assert_int_eq(cm_trace_get_format(t), CM_TRACE_LACKEY);
    ck_assert_int_eq(cm_trace_next(t, &a, &err), 1);
    ck_assert_int_eq(cm_trace_next(t, &a, &err), -1);
    char first[CM_ERR_MSG_MAX];
    strcpy(first, err.msg);
    ck_assert_ptr_nonnull(strstr(first, ":2: expected"));
    cm_err err2 = {0};
    ck_assert_int_eq(cm_trace_next(t, &a, &err2), -1);
    ck_assert_str_eq(err2.msg, first);
    cm_trace_close(t);
    free(path);
    tu_rm_tree(dir);
    free(dir);
}
END_TEST

/* ---- din -------------------------------------------------------------- */

START_TEST(test_din_good)
{
    const char *text = "0 1000\n"
                       "1 0x2000 8\n"
                       "2 400000\n"
                       "  0\t  3fff   2   \n"
                       "3 0\n"
                       "4 0 16\n"
                       "\n"
                       "1 FFFFFFFFFFFFFFFF 4294967295";
    static const want w[] = {{CM_OP_LOAD, 0x1000, 4},
                             {CM_OP_STORE, 0x2000, 8},
                             {CM_OP_LOAD, 0x3fff, 2},
                             {CM_OP_STORE, UINT64_MAX, UINT32_MAX}};
    acc_list l = read_text("t.din", text, CM_TRACE_AUTO, 0);
    assert_accesses(&l, w, 4);
    free(l.a);
}
END_TEST

#define DIN_EXPECT ": expected 'label hexaddr [size]' with label 0-4"

START_TEST(test_din_errors)
{
    static const char *const cases[][2] = {
        {"0 1000\n5 10\n", ":2" DIN_EXPECT},
        {"0\n", ":1" DIN_EXPECT},
        {"0 xyz\n", ":1" DIN_EXPECT},
        {"0 10 4 5\n", ":1" DIN_EXPECT},
        {"0 10 4x\n", ":1" DIN_EXPECT},
        {"0x 10\n", ":1" DIN_EXPECT},
        {"L 10\n", ":1" DIN_EXPECT},
        {"0 10g\n", ":1" DIN_EXPECT},
        {"99999999999999999999 10\n", ":1" DIN_EXPECT},
        {"0 10 4\n1 2\n0 3,\n", ":3" DIN_EXPECT},
        {"0 10000000000000000\n", ":1: address over 64 bits"},
        {"0 10 0\n", ":1: size must be 1 to 4294967295"},
        {"0 10 4294967296\n", ":1: size must be 1 to 4294967295"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        expect_error("t", cases[i][0], CM_TRACE_DIN, cases[i][1]);
}
END_TEST

/* ---- csv -------------------------------------------------------------- */

START_TEST(test_csv_good)
{
    const char *text =
        "op,addr,size,sm,warp,cycle,extra\n"
        "load,4096,8,1,2,100,x\n"
        "STORE,0x1000,4,0,0,0,\n"
        "m,0XfFfFfFfFfFfFfFfF,4294967295,4294967295,7,18446744073709551615,\n"
        "\n"
        "A, 12 ,1,3,4,5,\"q,q\"\n"
        "Modify,0,2,0,0,0,\n"
        "s,1,2,0,0,0,";
    acc_list l = read_text("t.csv", text, CM_TRACE_AUTO, 0);
    static const want w[] = {{CM_OP_LOAD, 4096, 8},
                             {CM_OP_STORE, 0x1000, 4},
                             {CM_OP_MODIFY, UINT64_MAX, UINT32_MAX},
                             {CM_OP_ATOMIC, 12, 1},
                             {CM_OP_MODIFY, 0, 2},
                             {CM_OP_STORE, 1, 2}};
    assert_accesses(&l, w, 6);
    ck_assert(l.a[0].sm == 1 && l.a[0].warp == 2 && l.a[0].cycle == 100);
    ck_assert(l.a[2].sm == UINT32_MAX && l.a[2].warp == 7 &&
              l.a[2].cycle == UINT64_MAX);
    ck_assert(l.a[3].sm == 3 && l.a[3].warp == 4 && l.a[3].cycle == 5);
    ck_assert(l.a[0].kernel == 0 && l.a[0].block == 0);
    free(l.a);
    /* Columns in any order; the optional ones absent. */
    l = read_text("u.csv", "size,addr,op\n8,16,l\n", CM_TRACE_CSV, 0);
    static const want w2[] = {{CM_OP_LOAD, 16, 8}};
    assert_accesses(&l, w2, 1);
    ck_assert(l.a[0].sm == 0 && l.a[0].warp == 0 && l.a[0].cycle == 0);
    free(l.a);
}
END_TEST

START_TEST(test_csv_errors)
{
    static const char *const cases[][2] = {
        {"op,size\nload,8\n", ":1:1: missing column 'addr'"},
        {"", ": the trace holds no memory accesses"},
        {"\n", ":1:1: empty file, expected a header row"},
        {"op,addr,size\nread,16,8\n",
         ":2:1: column 'op': expected load, store, modify or atomic, got "
         "'read'"},
        {"op,addr,size\nload,0x,8\n",
         ":2:6: column 'addr': expected an address (decimal or 0x-hex, 64 "
         "bits), got '0x'"},
        {"op,addr,size\nload,18446744073709551616,8\n",
         ":2:6: column 'addr': expected an address (decimal or 0x-hex, 64 "
         "bits), got '18446744073709551616'"},
        {"op,addr,size\nload,0x10000000000000000,8\n",
         ":2:6: column 'addr': expected an address (decimal or 0x-hex, 64 "
         "bits), got '0x10000000000000000'"},
        {"op,addr,size\nload,-1,4\n",
         ":2:6: column 'addr': expected an address (decimal or 0x-hex, 64 "
         "bits), got '-1'"},
        {"op,addr,size\nload,1,0\n",
         ":2:8: column 'size': expected a size of 1 to 4294967295 bytes, got "
         "'0'"},
        {"op,addr,size\nload,1,4\nstore,2\n",
         ":3:1: row has 2 fields, header has 3"},
        {"op,addr,size,sm\nload,1,4,4294967296\n",
         ":2:10: column 'sm': expected an SM number (32 bits), got "
         "'4294967296'"},
        {"op,addr,size,cycle\nload,1,4,1.5\n",
         ":2:10: column 'cycle': expected a cycle (decimal, 64 bits), got "
         "'1.5'"},
        {"op,addr,size\nload,1,\"4\n",
         ":2:8: quoted field is not closed before the end of the file"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        expect_error("t.csv", cases[i][0], CM_TRACE_AUTO, cases[i][1]);
    static const char nul[] = "op,addr,size\nload,1,\0\n";
    expect_error_n("t.csv", nul, sizeof nul - 1, CM_TRACE_CSV,
                   ":2:8: NUL byte: not a text file");
}
END_TEST

/* ---- accel ------------------------------------------------------------ */

#define KB1 0x7f1c8a000000ULL
#define KB2 0x7f1c8b000000ULL

typedef struct want_gpu {
    uint8_t op;
    uint64_t addr;
    uint32_t kernel, block, warp;
} want_gpu;

static void assert_gpu(const acc_list *l, const want_gpu *w, size_t n,
                       uint32_t line, uint32_t kernel_shift)
{
    ck_assert_uint_eq(l->n, n);
    for (size_t i = 0; i < n; i++) {
        const cm_access *a = &l->a[i];
        ck_assert_msg(a->op == w[i].op && a->addr == w[i].addr &&
                          a->size == line &&
                          a->kernel == w[i].kernel - kernel_shift &&
                          a->block == w[i].block && a->warp == w[i].warp &&
                          a->sm == 0 && a->cycle == 0,
                      "request %zu: %s 0x%llx size %u k%u b%u w%u", i,
                      cm_op_name(a->op), (unsigned long long)a->addr, a->size,
                      a->kernel, a->block, a->warp);
    }
}

/* The fixture's requests, worked out by hand from the instruction lines. */
static const want_gpu fixture[] = {
    /* kernel 1, block 0, warp 0: three full-warp float accesses (mode 1) */
    {CM_OP_LOAD, KB1 + 0x000, 1, 0, 0},
    {CM_OP_LOAD, KB1 + 0x200, 1, 0, 0},
    {CM_OP_STORE, KB1 + 0x400, 1, 0, 0},
    /* warp 1: 16 lanes from 0x60 straddle two lines; LDS skipped */
    {CM_OP_LOAD, KB1 + 0x000, 1, 0, 1},
    {CM_OP_LOAD, KB1 + 0x080, 1, 0, 1},
    {CM_OP_STORE, KB1 + 0x480, 1, 0, 1},
    /* block 1, warp 1: stride -8 over 8-byte lanes, 0x548..0x647 */
    {CM_OP_LOAD, KB1 + 0x500, 1, 1, 1},
    {CM_OP_LOAD, KB1 + 0x580, 1, 1, 1},
    {CM_OP_LOAD, KB1 + 0x600, 1, 1, 1},
    /* kernel 2, block (1,1,0) = 3: mode 0, four lanes, one straddling */
    {CM_OP_LOAD, KB2 + 0x0000, 2, 3, 0},
    {CM_OP_LOAD, KB2 + 0x1000, 2, 3, 0},
    {CM_OP_LOAD, KB2 + 0x3f80, 2, 3, 0},
    {CM_OP_LOAD, KB2 + 0x4000, 2, 3, 0},
    /* mode 2 with a negative delta: 0x10000..0x1000c then 0xff80.. */
    {CM_OP_STORE, KB2 + 0xff80, 2, 3, 0},
    {CM_OP_STORE, KB2 + 0x10000, 2, 3, 0},
    /* ATOMG, two lanes on one address; RED */
    {CM_OP_ATOMIC, KB2 + 0x20000, 2, 3, 0},
    {CM_OP_ATOMIC, KB2 + 0x20080, 2, 3, 0},
    /* LDG.E.128, 32 lanes x 16 bytes (no immediate); LDL, STS skipped */
    {CM_OP_LOAD, KB2 + 0x30000, 2, 3, 0},
    {CM_OP_LOAD, KB2 + 0x30080, 2, 3, 0},
    {CM_OP_LOAD, KB2 + 0x30100, 2, 3, 0},
    {CM_OP_LOAD, KB2 + 0x30180, 2, 3, 0},
    /* block 0: generic LD, lanes 0 and 31, the second straddling */
    {CM_OP_LOAD, KB2 + 0x40000, 2, 0, 0},
    {CM_OP_LOAD, KB2 + 0x40080, 2, 0, 0},
    /* generic ST, mode 2: 0x50100, 0x50000, 0x50200, emitted ascending */
    {CM_OP_STORE, KB2 + 0x50000, 2, 0, 0},
    {CM_OP_STORE, KB2 + 0x50100, 2, 0, 0},
    {CM_OP_STORE, KB2 + 0x50200, 2, 0, 0},
};

START_TEST(test_accel_kernelslist)
{
    acc_list l;
    cm_err err = {0};
    ck_assert_msg(read_all("tests/data/accel/kernelslist.g", CM_TRACE_AUTO, 0,
                           &l, &err) == 1,
                  "%s", err.msg);
    assert_gpu(&l, fixture, sizeof fixture / sizeof fixture[0], 128, 0);
    free(l.a);
    /* The list's directory is found from any path. */
    char *cwd = getcwd(NULL, 0);
    char *abs = malloc(strlen(cwd) + 64);
    sprintf(abs, "%s/tests/data/accel/kernelslist.g", cwd);
    ck_assert_int_eq(read_all(abs, CM_TRACE_ACCEL, 0, &l, &err), 1);
    ck_assert_uint_eq(l.n, sizeof fixture / sizeof fixture[0]);
    free(l.a);
    free(abs);
    free(cwd);
}
END_TEST

START_TEST(test_accel_single_file)
{
    acc_list l;
    cm_err err = {0};
    ck_assert_msg(read_all("tests/data/accel/kernel-2.traceg", CM_TRACE_AUTO,
                           0, &l, &err) == 1,
                  "%s", err.msg);
    /* Alone, kernel-2.traceg is kernel 1. */
    assert_gpu(&l, fixture + 9, sizeof fixture / sizeof fixture[0] - 9, 128,
               1);
    free(l.a);
}
END_TEST

#define TG_HEAD                                                          \
    "-kernel name = k\n-grid dim = (2,1,1)\n#traces format = whatever\n" \
    "#BEGIN_TB\nthread block = 1,0,0\nwarp = 3\n"
#define TG_INST(s) TG_HEAD "insts = 1\n" s "\n#END_TB\n"

START_TEST(test_accel_line_bytes_and_lineinfo)
{
    const char *text = TG_HEAD "insts = 1\n"
                               "0050 ffffffff 1 R8 LDG.E.128 1 R10 16 1 "
                               "0x1000 16 0\n#END_TB\n";
    acc_list l = read_text("k.traceg", text, CM_TRACE_AUTO, 32);
    ck_assert_uint_eq(l.n, 16);
    for (size_t i = 0; i < 16; i++)
        ck_assert(l.a[i].addr == 0x1000 + 32 * i && l.a[i].size == 32 &&
                  l.a[i].block == 1 && l.a[i].warp == 3 &&
                  l.a[i].kernel == 1);
    free(l.a);
    l = read_text("k.traceg", text, CM_TRACE_AUTO, 4096);
    ck_assert_uint_eq(l.n, 1);
    ck_assert(l.a[0].addr == 0x1000 && l.a[0].size == 4096);
    free(l.a);
    /* -enable lineinfo = 1: each instruction starts with a line number. */
    l = read_text("k.traceg",
                  "-grid dim = (1,1,1)\n-enable lineinfo = 1\n"
                  "#BEGIN_TB\nthread block = 0,0,0\nwarp = 0\ninsts = 2\n"
                  "17 0000 00000001 0 STG.E 2 R1 R2 4 0 0x100 0\n"
                  "18 0010 00000001 0 EXIT 0 0 0\n#END_TB\n",
                  CM_TRACE_ACCEL, 0);
    static const want w[] = {{CM_OP_STORE, 0x100, 128}};
    assert_accesses(&l, w, 1);
    free(l.a);
    /* A kernel without thread blocks is empty, not an error, beside one
     * with accesses; a trace of nothing but it holds no access at all. */
    char *dir = tu_tmpdir();
    free(tu_write_file(dir, "kernel-1.traceg", "-grid dim = (1,1,1)\n"));
    free(tu_write_file(dir, "kernel-2.traceg",
                       TG_INST("0000 00000001 0 STG.E 2 R1 R2 4 0 0x100 0")));
    char *list = tu_write_file(dir, "kernelslist.g",
                               "kernel-1.traceg\nkernel-2.traceg\n");
    cm_err e2 = {0};
    ck_assert_msg(read_all(list, CM_TRACE_AUTO, 0, &l, &e2) == 1, "%s",
                  e2.msg);
    assert_accesses(&l, w, 1);
    free(l.a);
    free(list);
    tu_rm_tree(dir);
    free(dir);
    expect_error("k.traceg", "-grid dim = (1,1,1)\n", CM_TRACE_ACCEL,
                 ": the trace holds no memory accesses");
    cm_trace *t;
    cm_err err = {0};
    cm_trace_opts o = {CM_TRACE_ACCEL, 100};
    ck_assert_int_eq(cm_trace_open("tests/data/accel/kernelslist.g", &o, &t,
                                   &err),
                     CM_EINPUT);
    ck_assert_str_eq(err.msg,
                     "line size 100: expected a power of two up to 65536");
}
END_TEST

#define INST_EXPECT                                                      \
    ": expected 'PC mask dest_num [regs] opcode src_num [regs] mem_width " \
    "[mode addresses] [imm]'"

START_TEST(test_accel_errors)
{
    static const char *const cases[][2] = {
        {"#BEGIN_TB\n",
         ":1: expected '-grid dim = (x,y,z)' before the first thread block"},
        {"-grid dim = (2,1)\n",
         ":1: expected '-grid dim = (x,y,z)' with positive sizes"},
        {"-grid dim = (0,1,1)\n",
         ":1: expected '-grid dim = (x,y,z)' with positive sizes"},
        {"-grid dim = (1,1,1) x\n",
         ":1: expected '-grid dim = (x,y,z)' with positive sizes"},
        {"-accelsim tracer version = 2\n",
         ":1: tracer version 2 is not supported (expected 3 or later)"},
        {"-enable lineinfo = yes\n", ":1: expected '-enable lineinfo = 0|1'"},
        {"-grid dim = (1,1,1)\nthread block = 0,0,0\n",
         ":2: expected '#BEGIN_TB'"},
        {"-grid dim = (1,1,1)\n#END_TB\n", ":2: expected '#BEGIN_TB'"},
        {"-grid dim = (1,1,1)\n#BEGIN_TBX\n", ":2: expected '#BEGIN_TB'"},
        {"-grid dim = (2,1,1)\n#BEGIN_TB\nwarp = 0\n",
         ":3: expected 'thread block = x,y,z'"},
        {"-grid dim = (2,1,1)\n#BEGIN_TB\nthread block = 2,0,0\n",
         ":3: thread block outside the grid (2,1,1)"},
        {"-grid dim = (2,1,1)\n#BEGIN_TB\nthread block = 0,0,0\ninsts = 1\n",
         ":4: expected 'warp = n' or '#END_TB'"},
        {TG_HEAD "0000 ffffffff 0 EXIT 0 0 0\n", ":7: expected 'insts = n'"},
        {TG_HEAD "insts = 2\n0000 ffffffff 0 EXIT 0 0 0\n#END_TB\n",
         ":9" INST_EXPECT},
        {TG_HEAD "insts = 1\n0000 ffffffff 0 EXIT 0 0 0\n"
                 "0000 ffffffff 0 EXIT 0 0 0\n",
         ":9: expected 'warp = n' or '#END_TB'"},
        {TG_HEAD, ":7: unexpected end of file, expected 'insts = n'"},
        {TG_HEAD "insts = 1\n",
         ":8: unexpected end of file, expected an instruction line"},
        {TG_HEAD "insts = 0\n",
         ":8: unexpected end of file, expected 'warp = n' or '#END_TB'"},
        {"-grid dim = (1,1,1)\n#BEGIN_TB\n",
         ":3: unexpected end of file, expected 'thread block = x,y,z'"},
        /* mode 0: one address per active lane, no fewer */
        {TG_INST("0 00000003 1 R2 LDG.E 1 R2 4 0 0x10"), ":8" INST_EXPECT},
        {TG_INST("0 00000001 1 R2 LDG.E 1 R2 4 0 0x10 0x20"),
         ":8" INST_EXPECT},
        {TG_INST("0 00000001 1 R2 LDG.E 1 R2 4 3 0x10"), ":8" INST_EXPECT},
        {TG_INST("0 00000001 1 R2 LDG.E 1 R2 4 1 0x10"), ":8" INST_EXPECT},
        {TG_INST("0 00000007 0 STG.E 1 R2 4 2 0x10 4"), ":8" INST_EXPECT},
        {TG_INST("0 00000003 0 STG.E 1 R2 4 2 0x10 abc"), ":8" INST_EXPECT},
        {TG_INST("0 00000001 0 STG.E 1 R2 4 0 0x10000000000000000"),
         ":8" INST_EXPECT},
        {TG_INST("0 1ffffffff 0 EXIT 0 0"), ":8" INST_EXPECT},
        {TG_INST("0 ffffffff 33 EXIT 0 0"), ":8" INST_EXPECT},
        {TG_INST("0 ffffffff 2 R1 EXIT 0 0"), ":8" INST_EXPECT},
        {TG_INST("0 ffffffff 0 EXIT 0"), ":8" INST_EXPECT},
        {TG_INST("0 ffffffff 0 EXIT 0 0 0 0"), ":8" INST_EXPECT},
        {TG_INST("0 ffffffff 0 EXIT 0 -"), ":8" INST_EXPECT},
        {TG_INST("zz ffffffff 0 EXIT 0 0"), ":8" INST_EXPECT},
        {TG_INST("0 00000001 0 STG.E 1 R2 256 0 0x10"),
         ":8: expected mem_width at most 128"},
        {TG_INST("0 00000001 0 STG.E 1 R2 4 0 0xffffffffffffffff"),
         ":8: address 0xffffffffffffffff + mem_width 4 exceeds 64 bits"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        expect_error("k.traceg", cases[i][0], CM_TRACE_AUTO, cases[i][1]);
    /* Skipped opcodes are still checked. */
    expect_error("k.traceg", TG_INST("0 00000003 0 STS 1 R2 4 0 0x10"),
                 CM_TRACE_ACCEL, ":8" INST_EXPECT);
}
END_TEST

START_TEST(test_accel_list_errors)
{
    char *dir = tu_tmpdir();
    char *list = tu_write_file(dir, "kernelslist.g",
                               "MemcpyHtoD,0x1,2\nkernel-1.traceg\nfoo\n");
    char *k1 = tu_write_file(dir, "kernel-1.traceg", TG_INST(
        "0 00000001 0 STG.E 1 R2 4 0 0x10 0"));
    acc_list l;
    cm_err err = {0};
    ck_assert_int_eq(read_all(list, CM_TRACE_AUTO, 0, &l, &err), -1);
    ck_assert_uint_eq(l.n, 1); /* kernel 1 was read before the bad line */
    char want[1024];
    snprintf(want, sizeof want,
             "%s:3: expected 'kernel-N.traceg' or 'MemcpyHtoD,addr,bytes'",
             list);
    ck_assert_str_eq(err.msg, want);
    free(l.a);
    free(tu_write_file(dir, "kernelslist.g", "kernel-9.traceg\n"));
    ck_assert_int_eq(read_all(list, CM_TRACE_AUTO, 0, &l, &err), -1);
    snprintf(want, sizeof want,
             "%s:1: %s/kernel-9.traceg: cannot open: No such file or "
             "directory",
             list, dir);
    ck_assert_str_eq(err.msg, want);
    free(l.a);
    free(tu_write_file(dir, "kernelslist.g", "kernel-1.traceg.xz\n"));
    ck_assert_int_eq(read_all(list, CM_TRACE_AUTO, 0, &l, &err), -1);
    snprintf(want, sizeof want,
             "%s:1: compressed trace 'kernel-1.traceg.xz': decompress it "
             "first (xz -dk)",
             list);
    ck_assert_str_eq(err.msg, want);
    free(l.a);
    /* An error inside a kernel names the kernel file. */
    free(tu_write_file(dir, "kernelslist.g", "kernel-1.traceg\n"));
    free(tu_write_file(dir, "kernel-1.traceg", TG_INST("0 1 0 STG.E 1")));
    ck_assert_int_eq(read_all(list, CM_TRACE_AUTO, 0, &l, &err), -1);
    snprintf(want, sizeof want, "%s:8" INST_EXPECT, k1);
    ck_assert_str_eq(err.msg, want);
    free(l.a);
    free(list);
    free(k1);
    tu_rm_tree(dir);
    free(dir);
}
END_TEST

/* ---- detection and stdin ---------------------------------------------- */

/* Issue 23, item 2: a trace without a single access is the one error
 * "<name>: the trace holds no memory accesses", whatever the format, the
 * name or the way it is empty (a zero-byte file, blank lines, banners or a
 * header only), and a .lackey name is a lackey trace even when empty. */
START_TEST(test_empty_traces)
{
    static const struct {
        const char *name, *text;
        cm_trace_format fmt;
    } cases[] = {
        {"e.lackey", "", CM_TRACE_AUTO},
        {"e.lackey", "", CM_TRACE_LACKEY},
        {"e.din", "", CM_TRACE_AUTO},
        {"e.csv", "", CM_TRACE_AUTO},
        {"e.trace", "", CM_TRACE_AUTO},
        {"blank.trace", "\n  \n\t\n", CM_TRACE_AUTO},
        {"banner.lackey", "==12== Lackey\n==12== \n", CM_TRACE_AUTO},
        {"banner.trace", "==12== Lackey\nI  04000000,3\n", CM_TRACE_AUTO},
        {"header.csv", "op,addr,size\n", CM_TRACE_AUTO},
        {"label.din", "2 400000\n", CM_TRACE_DIN},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++)
        expect_error(cases[i].name, cases[i].text, cases[i].fmt,
                     ": the trace holds no memory accesses");
    /* the same error on every later read, and from stdin */
    char *dir = tu_tmpdir();
    char *path = tu_write_file(dir, "e.lackey", "==1== x\n");
    cm_trace *t;
    cm_err err = {0};
    cm_access a;
    ck_assert_int_eq(cm_trace_open(path, NULL, &t, &err), CM_OK);
    ck_assert_int_eq(cm_trace_get_format(t), CM_TRACE_LACKEY);
    ck_assert_int_eq(cm_trace_next(t, &a, &err), -1);
    ck_assert_int_eq(cm_trace_next(t, &a, &err), -1);
    ck_assert_ptr_nonnull(strstr(err.msg, "holds no memory accesses"));
    cm_trace_close(t);
    ck_assert_ptr_nonnull(freopen(path, "rb", stdin));
    cm_trace_opts o = {CM_TRACE_LACKEY, 0};
    ck_assert_int_eq(cm_trace_open("-", &o, &t, &err), CM_OK);
    ck_assert_int_eq(cm_trace_next(t, &a, &err), -1);
    ck_assert_str_eq(err.msg, "<stdin>: the trace holds no memory accesses");
    cm_trace_close(t);
    free(path);
    tu_rm_tree(dir);
    free(dir);
}
END_TEST

START_TEST(test_auto_detect)
{
    static const struct {
        const char *name, *text;
        cm_trace_format f;
    } cases[] = {
        {"a.csv", "op,addr,size\n", CM_TRACE_CSV},
        {"a.din", "0 10\n", CM_TRACE_DIN},
        {"a.traceg", "-grid dim = (1,1,1)\n", CM_TRACE_ACCEL},
        {"kernelslist.g", "\n", CM_TRACE_ACCEL},
        {"a", "==12== Lackey\n", CM_TRACE_LACKEY},
        {"a", "--12-- x\n", CM_TRACE_LACKEY},
        {"a", "\n\n L 10,4\n", CM_TRACE_LACKEY},
        {"a", " S 10,4\n", CM_TRACE_LACKEY},
        {"a", " M 10,4\n", CM_TRACE_LACKEY},
        {"a", "I  10,4\n", CM_TRACE_LACKEY},
        {"a.trace", "0 10\n", CM_TRACE_DIN},
        {"a", "  1\tdeadbeef 4\n", CM_TRACE_DIN},
        {"a", "\xEF\xBB\xBF" "cycle, op ,addr,size\n", CM_TRACE_CSV},
        {"a", "-kernel name = x\n", CM_TRACE_ACCEL},
        {"a", "#BEGIN_TB\n", CM_TRACE_ACCEL},
        {"a", "MemcpyHtoD,0x1,2\n", CM_TRACE_ACCEL},
        {"a", "kernel-1.traceg\n", CM_TRACE_ACCEL},
    };
    char *dir = tu_tmpdir();
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char *path = tu_write_file(dir, cases[i].name, cases[i].text);
        cm_trace *t;
        cm_err err = {0};
        cm_trace_opts o = {CM_TRACE_AUTO, 0};
        ck_assert_msg(cm_trace_open(path, &o, &t, &err) == CM_OK, "%s: %s",
                      cases[i].text, err.msg);
        ck_assert_msg(cm_trace_get_format(t) == cases[i].f, "'%s' read as %s",
                      cases[i].text,
                      cm_trace_format_name(cm_trace_get_format(t)));
        cm_trace_close(t);
        unlink(path);
        free(path);
    }
    static const char *const unknown[] = {"hello\n", "0\n", "0 zz\n",
                                          "\x7f" "ELF\x02\x01", "op;addr\n",
                                          "L 10,4\n"};
    for (size_t i = 0; i < sizeof unknown / sizeof unknown[0]; i++) {
        char *path = tu_write_file(dir, "b", unknown[i]);
        cm_trace *t = NULL;
        cm_err err = {0};
        ck_assert_int_eq(cm_trace_open(path, NULL, &t, &err), CM_EINPUT);
        ck_assert_ptr_null(t);
        char want[512];
        snprintf(want, sizeof want,
                 "%s: cannot tell the trace format from the name or the "
                 "first line (give lackey, din, csv or accel)",
                 path);
        ck_assert_str_eq(err.msg, want);
        free(path);
    }
    cm_trace *t = NULL;
    cm_err err = {0};
    ck_assert_int_eq(cm_trace_open("/nonexistent/t.din", NULL, &t, &err),
                     CM_EINPUT);
    ck_assert_str_eq(err.msg, "/nonexistent/t.din: cannot open: No such file "
                              "or directory");
    ck_assert_int_eq(cm_trace_open("/nonexistent/t.csv", NULL, &t, &err),
                     CM_EINPUT);
    ck_assert_str_eq(err.msg, "/nonexistent/t.csv: cannot open: No such file "
                              "or directory");
    tu_rm_tree(dir);
    free(dir);
}
END_TEST

/* stdin: the sniffed first buffer must reach the reader intact, for the
 * line formats and for csv, which reads through the CSV layer. */
static void stdin_case(const char *text, cm_trace_format given,
                       cm_trace_format detected, const want *w, size_t n)
{
    char *dir = tu_tmpdir();
    char *path = tu_write_file(dir, "in", text);
    ck_assert_ptr_nonnull(freopen(path, "rb", stdin));
    acc_list l;
    cm_err err = {0};
    cm_trace_opts o = {given, 0};
    cm_trace *t;
    ck_assert_msg(cm_trace_open("-", &o, &t, &err) == CM_OK, "%s", err.msg);
    ck_assert_int_eq(cm_trace_get_format(t), detected);
    cm_trace_close(t);
    ck_assert_ptr_nonnull(freopen(path, "rb", stdin));
    ck_assert_msg(read_all("-", given, 0, &l, &err) == 1, "%s", err.msg);
    assert_accesses(&l, w, n);
    free(l.a);
    free(path);
    tu_rm_tree(dir);
    free(dir);
}

START_TEST(test_stdin)
{
    static const want w[] = {{CM_OP_LOAD, 0x10, 4}, {CM_OP_STORE, 0x20, 8}};
    stdin_case("==1== x\n L 10,4\n S 20,8\n", CM_TRACE_AUTO, CM_TRACE_LACKEY,
               w, 2);
    stdin_case("0 10\n1 20 8\n", CM_TRACE_AUTO, CM_TRACE_DIN, w, 2);
    stdin_case("op,addr,size\nL,16,4\nS,0x20,8\n", CM_TRACE_AUTO,
               CM_TRACE_CSV, w, 2);
    stdin_case("op,addr,size\nL,16,4\nS,0x20,8\n", CM_TRACE_CSV, CM_TRACE_CSV,
               w, 2);
    /* A CSV larger than the sniffed buffer. */
    size_t rows = 40000, cap = rows * 24 + 64, n = 0;
    char *big = malloc(cap);
    want *bw = malloc(rows * sizeof *bw);
    n += (size_t)sprintf(big, "op,addr,size\n");
    for (size_t i = 0; i < rows; i++) {
        n += (size_t)sprintf(big + n, "%s,0x%zx,%zu\n", i % 2 ? "S" : "L",
                             i * 64, i % 8 + 1);
        bw[i] = (want){i % 2 ? CM_OP_STORE : CM_OP_LOAD, i * 64,
                       (uint32_t)(i % 8 + 1)};
    }
    ck_assert_uint_gt(n, 256 << 10);
    stdin_case(big, CM_TRACE_AUTO, CM_TRACE_CSV, bw, rows);
    free(big);
    free(bw);
    /* A lone .traceg on stdin. */
    ck_assert_ptr_nonnull(freopen("tests/data/accel/kernel-1.traceg", "rb",
                                  stdin));
    acc_list l;
    cm_err err = {0};
    ck_assert_msg(read_all("-", CM_TRACE_AUTO, 0, &l, &err) == 1, "%s",
                  err.msg);
    assert_gpu(&l, fixture, 9, 128, 0);
    free(l.a);
}
END_TEST

/* ---- real traces ------------------------------------------------------ */

static size_t count_data_lines(const char *path)
{
    FILE *f = fopen(path, "rb");
    ck_assert_ptr_nonnull(f);
    char line[256];
    size_t n = 0;
    while (fgets(line, sizeof line, f))
        n += line[0] == ' ' && strchr("LSM", line[1]) && line[2] == ' ';
    fclose(f);
    return n;
}

START_TEST(test_real_traces_agree)
{
    acc_list lk, dn, cs;
    cm_err err = {0};
    ck_assert_msg(read_all("tests/data/traces/ls.lackey", CM_TRACE_AUTO, 0,
                           &lk, &err) == 1,
                  "%s", err.msg);
    ck_assert_uint_eq(lk.n, 3000);
    ck_assert_uint_eq(lk.n, count_data_lines("tests/data/traces/ls.lackey"));
    ck_assert_int_eq(read_all("tests/data/traces/ls.din", CM_TRACE_AUTO, 0,
                              &dn, &err),
                     1);
    ck_assert_int_eq(read_all("tests/data/traces/ls.csv", CM_TRACE_AUTO, 0,
                              &cs, &err),
                     1);
    /* csv holds every access; din all but the modifies. */
    ck_assert_uint_eq(cs.n, lk.n);
    size_t j = 0, ops[CM_OP_COUNT] = {0};
    for (size_t i = 0; i < lk.n; i++) {
        const cm_access *a = &lk.a[i];
        ops[a->op]++;
        ck_assert(a->size >= 1 && a->size <= 64);
        ck_assert(same_access(a, &cs.a[i]));
        if (a->op == CM_OP_MODIFY) continue;
        ck_assert_uint_lt(j, dn.n);
        ck_assert(same_access(a, &dn.a[j]));
        j++;
    }
    ck_assert_uint_eq(j, dn.n);
    ck_assert(ops[CM_OP_LOAD] > 0 && ops[CM_OP_STORE] > 0 &&
              ops[CM_OP_MODIFY] > 0);
    free(lk.a);
    free(dn.a);
    free(cs.a);
    ck_assert_int_eq(read_all("tests/data/traces/gzip.lackey", CM_TRACE_AUTO,
                              0, &lk, &err),
                     1);
    ck_assert_uint_eq(lk.n, 2000);
    free(lk.a);
    ck_assert_int_eq(read_all("data/traces/sort.lackey", CM_TRACE_AUTO, 0,
                              &lk, &err),
                     1);
    ck_assert_uint_eq(lk.n, 200000);
    free(lk.a);
}
END_TEST

/* The generated traces (scripts/make_traces.sh), when `make test` made
 * them: each must hold exactly the accesses the script cut it to. */
START_TEST(test_generated_traces)
{
    const char *dir = getenv("COHMOD_TRACES");
    if (!dir) return;
    static const struct {
        const char *name;
        uint64_t n;
    } traces[] = {{"ls.lackey", 1000000},
                  {"sort.lackey", 2000000},
                  {"gzip.lackey", 2000000},
                  {"sha256sum.lackey", 1000000}};
    for (size_t i = 0; i < sizeof traces / sizeof traces[0]; i++) {
        char *path = tu_path_in(dir, traces[i].name);
        cm_trace *t;
        cm_err err = {0};
        ck_assert_msg(cm_trace_open(path, NULL, &t, &err) == CM_OK, "%s",
                      err.msg);
        cm_access a;
        uint64_t n = 0;
        int got;
        while ((got = cm_trace_next(t, &a, &err)) == 1) n++;
        ck_assert_msg(got == 0, "%s", err.msg);
        ck_assert_msg(n == traces[i].n, "%s: %llu accesses", path,
                      (unsigned long long)n);
        cm_trace_close(t);
        free(path);
    }
}
END_TEST

/* ---- bytes read ------------------------------------------------------- */

START_TEST(test_bytes_read)
{
    static const char *const paths[] = {
        "tests/data/traces/ls.lackey", "tests/data/traces/ls.din",
        "tests/data/traces/ls.csv", "tests/data/accel/kernel-1.traceg"};
    for (size_t i = 0; i < 4; i++) {
        size_t len;
        char *text = tu_read_file(paths[i], &len);
        ck_assert_ptr_nonnull(text);
        free(text);
        cm_trace *t;
        cm_err err = {0};
        ck_assert_int_eq(cm_trace_open(paths[i], NULL, &t, &err), CM_OK);
        cm_access a;
        uint64_t prev = 0;
        while (cm_trace_next(t, &a, &err) == 1) {
            ck_assert_uint_ge(cm_trace_bytes_read(t), prev);
            prev = cm_trace_bytes_read(t);
        }
        ck_assert_uint_eq(cm_trace_bytes_read(t), len);
        cm_trace_close(t);
    }
    /* kernelslist.g: the list and both kernel files. */
    size_t total = 0, len;
    static const char *const parts[] = {"kernelslist.g", "kernel-1.traceg",
                                        "kernel-2.traceg"};
    for (int i = 0; i < 3; i++) {
        char path[128];
        snprintf(path, sizeof path, "tests/data/accel/%s", parts[i]);
        free(tu_read_file(path, &len));
        total += len;
    }
    cm_trace *t;
    cm_err err = {0};
    ck_assert_int_eq(cm_trace_open("tests/data/accel/kernelslist.g", NULL, &t,
                                   &err),
                     CM_OK);
    cm_access a;
    while (cm_trace_next(t, &a, &err) == 1) {}
    ck_assert_uint_eq(cm_trace_bytes_read(t), total);
    cm_trace_close(t);
}
END_TEST

/* ---- bounded memory --------------------------------------------------- */

static long max_rss_kb(void)
{
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return ru.ru_maxrss;
}

START_TEST(test_bounded_memory)
{
    char *dir = tu_tmpdir();
    char *path = tu_path_in(dir, "big");
    FILE *f = fopen(path, "wb");
    ck_assert_ptr_nonnull(f);
    const char *block = "I  04016b90,3\n L 04222cb8,8\n S 1ffefffdb8,8\n"
                        "I  0401b770,1\n M 0421d0a0,4\n";
    size_t blen = strlen(block), n = 0;
    for (; n < (size_t)50 << 20; n += blen) fputs(block, f);
    fclose(f);
    long before = max_rss_kb();
    cm_trace *t;
    cm_err err = {0};
    ck_assert_int_eq(cm_trace_open(path, NULL, &t, &err), CM_OK);
    cm_access a;
    uint64_t count = 0;
    int got;
    while ((got = cm_trace_next(t, &a, &err)) == 1) count++;
    ck_assert_int_eq(got, 0);
    ck_assert_uint_eq(count, n / blen * 3);
    ck_assert_uint_eq(cm_trace_bytes_read(t), n);
    cm_trace_close(t);
    long grew = max_rss_kb() - before;
    ck_assert_msg(grew < 8 << 10, "reading 50 MB grew the RSS by %ld KB",
                  grew);
    /* One 8 MB line is refused once the limit is passed, whatever the
     * format, instead of growing a buffer to hold it. */
    f = fopen(path, "wb");
    fputs(" L 10,8\n L ", f);
    for (int i = 0; i < 8 << 20; i++) fputc('1', f);
    fclose(f);
    before = max_rss_kb();
    acc_list l;
    ck_assert_int_eq(read_all(path, CM_TRACE_LACKEY, 0, &l, &err), -1);
    ck_assert_uint_eq(l.n, 1);
    ck_assert_ptr_nonnull(strstr(err.msg, ":2: line longer than 65536 bytes"));
    free(l.a);
    f = fopen(path, "wb");
    fputs("-grid dim = (1,1,1)\n#", f);
    for (int i = 0; i < 8 << 20; i++) fputc('1', f);
    fclose(f);
    ck_assert_int_eq(read_all(path, CM_TRACE_ACCEL, 0, &l, &err), -1);
    ck_assert_ptr_nonnull(strstr(err.msg, ":2: line longer than 65536 bytes"));
    free(l.a);
    f = fopen(path, "wb");
    fputs("op,addr,size\nload,1,\"", f);
    for (int i = 0; i < 8 << 20; i++) fputc(i % 50 ? '1' : '\n', f);
    fclose(f);
    ck_assert_int_eq(read_all(path, CM_TRACE_CSV, 0, &l, &err), -1);
    ck_assert_ptr_nonnull(strstr(err.msg, ":2:1: row longer than 1048576 "
                                          "bytes"));
    grew = max_rss_kb() - before;
    ck_assert_msg(grew < 8 << 10, "long lines grew the RSS by %ld KB", grew);
    unlink(path);
    free(path);
    tu_rm_tree(dir);
    free(dir);
}
END_TEST

/* ---- garbage ---------------------------------------------------------- */

/* Reads buf as the given format; any outcome but a crash, a hang or an
 * error without the file's name is fine. */
static void read_garbage(const char *dir, const char *name, const char *buf,
                         size_t len, cm_trace_format fmt)
{
    char *path = write_bytes(dir, name, buf, len);
    acc_list l;
    cm_err err = {0};
    int r = read_all(path, fmt, 0, &l, &err);
    if (r != 1) {
        ck_assert_int_eq(err.code, CM_EINPUT);
        ck_assert_msg(!strncmp(err.msg, path, strlen(path)), "%s", err.msg);
    }
    free(l.a);
    free(path);
}

START_TEST(test_garbage_never_crashes)
{
    static const struct {
        const char *name, *alphabet;
        cm_trace_format f;
    } kinds[] = {
        {"g", " LSMI=-,0123456789abcdef\n\r\t", CM_TRACE_LACKEY},
        {"g", " 012345abcdefx\n\t", CM_TRACE_DIN},
        {"g.csv", "op,addr,size\"\nLSxa0123\r ", CM_TRACE_CSV},
        {"g.traceg", "-#=() ,0123456789abcdefxRLDGST.\n", CM_TRACE_ACCEL},
        {"g", "==I LSM,0123\n\x00\xff", CM_TRACE_AUTO},
    };
    char *dir = tu_tmpdir();
    uint64_t seed = 2024;
    for (int round = 0; round < 2500; round++) {
        size_t k = (size_t)round % 5, len = lcg_next(&seed) % 400;
        char *buf = malloc(len + 1);
        const char *al = kinds[k].alphabet;
        size_t an = k == 4 ? 15 : strlen(al);
        for (size_t i = 0; i < len; i++) {
            uint64_t x = lcg_next(&seed);
            buf[i] = round % 3 == 0 ? (char)(x & 0xFF) : al[x % an];
        }
        read_garbage(dir, kinds[k].name, buf, len, kinds[k].f);
        free(buf);
    }
    tu_rm_tree(dir);
    free(dir);
}
END_TEST

/* Every prefix of a good trace, and random byte damage to it. */
static void mutate_file(const char *src, const char *name,
                        cm_trace_format fmt, size_t max_prefix)
{
    size_t len;
    char *text = tu_read_file(src, &len);
    ck_assert_ptr_nonnull(text);
    if (len > max_prefix) len = max_prefix;
    char *dir = tu_tmpdir();
    for (size_t cut = 0; cut <= len; cut++)
        read_garbage(dir, name, text, cut, fmt);
    uint64_t seed = 7;
    char *buf = malloc(len);
    for (int round = 0; round < 400; round++) {
        memcpy(buf, text, len);
        for (int k = 0; k < 1 + round % 4; k++) {
            uint64_t x = lcg_next(&seed);
            buf[x % len] = round % 2 ? (char)(x >> 32)
                                     : " \n0x-9f,"[(x >> 32) % 8];
        }
        read_garbage(dir, name, buf, len, fmt);
    }
    free(buf);
    free(text);
    tu_rm_tree(dir);
    free(dir);
}

START_TEST(test_truncated_and_damaged)
{
    mutate_file("tests/data/accel/kernel-2.traceg", "k.traceg",
                CM_TRACE_ACCEL, 4096);
    mutate_file("tests/data/traces/ls.lackey", "t", CM_TRACE_LACKEY, 1500);
    mutate_file("tests/data/traces/ls.din", "t.din", CM_TRACE_DIN, 1500);
    mutate_file("tests/data/traces/ls.csv", "t.csv", CM_TRACE_CSV, 1500);
}
END_TEST

Suite *suite_trace(void)
{
    Suite *s = suite_create("trace");
    TCase *tc = tcase_create("formats");
    tcase_add_test(tc, test_names);
    tcase_add_test(tc, test_lackey_good);
    tcase_add_test(tc, test_lackey_errors);
    tcase_add_test(tc, test_errors_are_sticky);
    tcase_add_test(tc, test_din_good);
    tcase_add_test(tc, test_din_errors);
    tcase_add_test(tc, test_csv_good);
    tcase_add_test(tc, test_csv_errors);
    tcase_add_test(tc, test_accel_kernelslist);
    tcase_add_test(tc, test_accel_single_file);
    tcase_add_test(tc, test_accel_line_bytes_and_lineinfo);
    tcase_add_test(tc, test_accel_errors);
    tcase_add_test(tc, test_accel_list_errors);
    tcase_add_test(tc, test_empty_traces);
    tcase_add_test(tc, test_auto_detect);
    tcase_add_test(tc, test_stdin);
    tcase_add_test(tc, test_bytes_read);
    suite_add_tcase(s, tc);
    tc = tcase_create("real and robust");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, test_real_traces_agree);
    tcase_add_test(tc, test_generated_traces);
    tcase_add_test(tc, test_bounded_memory);
    tcase_add_test(tc, test_garbage_never_crashes);
    tcase_add_test(tc, test_truncated_and_damaged);
    suite_add_tcase(s, tc);
    return s;
}
