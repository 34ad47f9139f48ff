/* check_cache.c - the exact cache against hand-worked sequences.
 *
 * Each expected count below was worked out by hand from the policy's
 * definition (the set contents after each access are in the comments);
 * LRU is also checked against Mattson's inclusion property through the
 * exact stack-distance engine, and random replacement against the
 * stationary hit rate of its Markov chain. */
#include <stdlib.h>
#include <string.h>

#include "models/reuse.h"
#include "sim/cache.h"
#include "tests/testutil.h"

static cm_cache *make_cache(uint64_t size, uint64_t ways, uint64_t line,
                            cm_cache_policy pol, int write_allocate,
                            uint64_t seed)
{
    cm_cache_config cfg = {size, ways, line, pol, write_allocate, seed};
    cm_cache *c = NULL;
    cm_err err = {0};
    ck_assert_msg(cm_cache_new(&cfg, &c, &err) == CM_OK, "%s", err.msg);
    ck_assert_ptr_nonnull(c);
    return c;
}

/* Touches each line of seq in turn; returns the hit count. */
static int touch_all(cm_cache *c, const uint64_t *seq, size_t n)
{
    int hits = 0;
    for (size_t i = 0; i < n; i++) hits += cm_cache_touch(c, seq[i], 1);
    return hits;
}

static void access_one(cm_cache *c, cm_op op, uint64_t addr, uint32_t size)
{
    cm_access a = {0};
    a.op = (uint8_t)op;
    a.addr = addr;
    a.size = size;
    cm_cache_access(c, &a);
}

START_TEST(test_lru_and_fifo_differ_on_a_reused_line)
{
    /* One set of 2 ways; A=0 B=1 C=2, sequence A B A C A B.
     * LRU (MRU first): [A] [B A] hit[A B] [C A] hit[A C] [B A]: 2 hits.
     * FIFO (newest first): [A] [B A] hit[B A] [C B] (A out) [A C] (B out)
     * [B A] (C out): 1 hit. */
    const uint64_t seq[] = {0, 1, 0, 2, 0, 1};
    cm_cache *lru = make_cache(128, 2, 64, CM_CACHE_LRU, 1, 0);
    cm_cache *fifo = make_cache(128, 2, 64, CM_CACHE_FIFO, 1, 0);
    ck_assert_uint_eq(cm_cache_sets(lru), 1);
    ck_assert_int_eq(touch_all(lru, seq, 6), 2);
    ck_assert_int_eq(touch_all(fifo, seq, 6), 1);
    /* LRU now holds [B A]: A hits, C evicts B, so B misses. */
    ck_assert_int_eq(cm_cache_touch(lru, 0, 1), 1);
    ck_assert_int_eq(cm_cache_touch(lru, 2, 1), 0);
    ck_assert_int_eq(cm_cache_touch(lru, 1, 1), 0);
    cm_cache_free(lru);
    cm_cache_free(fifo);
}
END_TEST

START_TEST(test_cyclic_thrash)
{
    /* Three lines cycling through two ways miss every time under LRU and
     * FIFO; four lines spread over two sets fit. */
    uint64_t seq[300];
    for (size_t i = 0; i < 300; i++) seq[i] = i % 3;
    for (int pol = CM_CACHE_LRU; pol <= CM_CACHE_FIFO; pol++) {
        cm_cache *c = make_cache(128, 2, 64, (cm_cache_policy)pol, 1, 0);
        ck_assert_int_eq(touch_all(c, seq, 300), 0);
        cm_cache_free(c);
    }
    for (size_t i = 0; i < 300; i++) seq[i] = i % 4;
    cm_cache *c = make_cache(256, 2, 64, CM_CACHE_LRU, 1, 0);
    ck_assert_uint_eq(cm_cache_sets(c), 2);
    ck_assert_int_eq(touch_all(c, seq, 300), 296);
    cm_cache_free(c);
}
END_TEST

START_TEST(test_sets_not_a_power_of_two)
{
    /* 3 sets x 2 ways: lines 0, 3, 6 share set 0, line 1 is in set 1.
     * 0 [0], 3 [3 0], 1 (set 1), 6 [6 3] evicts 0, 0 misses [0 6],
     * 1 hits, 6 hits, 3 misses. */
    const uint64_t seq[] = {0, 3, 1, 6, 0, 1, 6, 3};
    const int hit[] = {0, 0, 0, 0, 0, 1, 1, 0};
    cm_cache *c = make_cache(3 * 2 * 32, 2, 32, CM_CACHE_LRU, 1, 0);
    ck_assert_uint_eq(cm_cache_sets(c), 3);
    for (size_t i = 0; i < 8; i++)
        ck_assert_int_eq(cm_cache_touch(c, seq[i], 1), hit[i]);
    cm_cache_free(c);
}
END_TEST

START_TEST(test_random_replacement)
{
    /* Cycling 0 1 2 through one 2-way set.  After an access to line i the
     * other resident line is i+1 (state N: the next access hits, and the
     * state becomes P) or i-1 (state P: the next access misses and evicts
     * i or i-1 with probability 1/2 each, giving P or N).  The stationary
     * share of N, 1/3, is the hit rate. */
    enum { N = 30000 };
    uint64_t *seq = malloc(N * sizeof *seq);
    for (size_t i = 0; i < N; i++) seq[i] = i % 3;
    cm_cache *a = make_cache(128, 2, 64, CM_CACHE_RANDOM, 1, 7);
    cm_cache *b = make_cache(128, 2, 64, CM_CACHE_RANDOM, 1, 7);
    cm_cache *d = make_cache(128, 2, 64, CM_CACHE_RANDOM, 1, 8);
    int ha = touch_all(a, seq, N), hb = touch_all(b, seq, N),
        hd = touch_all(d, seq, N);
    ck_assert_int_eq(ha, hb); /* the seed fixes the run */
    ck_assert_int_ne(ha, hd);
    ck_assert_msg(ha > 0.31 * N && ha < 0.356 * N, "hit rate %g, want 1/3",
                  (double)ha / N);
    /* Empty ways fill before anything is evicted. */
    cm_cache *e = make_cache(4 * 64, 4, 64, CM_CACHE_RANDOM, 1, 1);
    const uint64_t four[] = {10, 11, 12, 13, 10, 11, 12, 13};
    ck_assert_int_eq(touch_all(e, four, 8), 4);
    cm_cache_free(a);
    cm_cache_free(b);
    cm_cache_free(d);
    cm_cache_free(e);
    free(seq);
}
END_TEST

START_TEST(test_lru_matches_stack_distances)
{
    /* Inclusion (Mattson): a fully associative LRU cache of C lines misses
     * exactly the cold accesses and those of stack distance >= C. */
    cm_cache *c = make_cache(16 * 64, 16, 64, CM_CACHE_LRU, 1, 0);
    cm_stackdist *sd = cm_stackdist_new();
    ck_assert_ptr_nonnull(sd);
    uint64_t x = 12345, misses = 0, predicted = 0;
    cm_err err = {0};
    for (int i = 0; i < 20000; i++) {
        x = x * 6364136223846793005ull + 1442695040888963407ull;
        uint64_t line = (x >> 33) % 40;
        int64_t d;
        ck_assert_int_eq(cm_stackdist_access(sd, line, &d, NULL, &err),
                         CM_OK);
        predicted += d < 0 || d >= 16;
        misses += !cm_cache_touch(c, line, 1);
    }
    ck_assert_uint_eq(misses, predicted);
    ck_assert_uint_gt(misses, 1000);
    ck_assert_uint_lt(misses, 19000);
    cm_stackdist_free(sd);
    cm_cache_free(c);
}
END_TEST

START_TEST(test_write_allocate)
{
    for (int wa = 0; wa <= 1; wa++) {
        cm_cache *c = make_cache(4096, 4, 64, CM_CACHE_LRU, wa, 0);
        access_one(c, CM_OP_STORE, 1000, 4); /* miss either way */
        access_one(c, CM_OP_LOAD, 1000, 4);  /* hits only if allocated */
        access_one(c, CM_OP_STORE, 1000, 4); /* line is in now */
        const cm_cache_counts *k = cm_cache_get_counts(c);
        ck_assert_uint_eq(k->accesses[CM_OP_STORE], 2);
        ck_assert_uint_eq(k->misses[CM_OP_STORE], 1);
        ck_assert_uint_eq(k->accesses[CM_OP_LOAD], 1);
        ck_assert_uint_eq(k->misses[CM_OP_LOAD], wa ? 0 : 1);
        cm_cache_free(c);
    }
    /* A store hit refreshes LRU recency even without write-allocate:
     * 1 set x 2 ways, A B, store A, C evicts B, so A still hits. */
    cm_cache *c = make_cache(128, 2, 64, CM_CACHE_LRU, 0, 0);
    access_one(c, CM_OP_LOAD, 0, 1);
    access_one(c, CM_OP_LOAD, 64, 1);
    access_one(c, CM_OP_STORE, 0, 1);
    access_one(c, CM_OP_LOAD, 128, 1);
    access_one(c, CM_OP_LOAD, 0, 1);
    const cm_cache_counts *k = cm_cache_get_counts(c);
    ck_assert_uint_eq(k->misses[CM_OP_LOAD], 3);
    ck_assert_uint_eq(k->misses[CM_OP_STORE], 0);
    /* touch with allocate = 0 never fills. */
    ck_assert_int_eq(cm_cache_touch(c, 99, 0), 0);
    ck_assert_int_eq(cm_cache_touch(c, 99, 0), 0);
    cm_cache_free(c);
}
END_TEST

START_TEST(test_straddling_access_counts_once)
{
    cm_cache *c = make_cache(4096, 4, 64, CM_CACHE_LRU, 1, 0);
    access_one(c, CM_OP_LOAD, 60, 8);   /* lines 0 and 1: one miss */
    access_one(c, CM_OP_LOAD, 0, 4);    /* hit */
    access_one(c, CM_OP_LOAD, 64, 4);   /* hit: the straddle filled it */
    access_one(c, CM_OP_LOAD, 120, 16); /* line 1 hits, 2 misses: a miss */
    access_one(c, CM_OP_LOAD, 128, 0);  /* size 0 reads one line: hit */
    access_one(c, CM_OP_LOAD, 190, 2);  /* 190-191, line 2 only: hit */
    const cm_cache_counts *k = cm_cache_get_counts(c);
    ck_assert_uint_eq(k->accesses[CM_OP_LOAD], 6);
    ck_assert_uint_eq(k->misses[CM_OP_LOAD], 2);
    /* A straddle at the top of the address space stops at the last line. */
    access_one(c, CM_OP_LOAD, UINT64_MAX - 3, 8);
    ck_assert_uint_eq(k->accesses[CM_OP_LOAD], 7);
    ck_assert_uint_eq(k->misses[CM_OP_LOAD], 3);
    cm_cache_free(c);
}
END_TEST

START_TEST(test_modify_counts_once_as_a_read)
{
    /* No write-allocate: a modify still allocates, being a read first. */
    cm_cache *c = make_cache(4096, 4, 64, CM_CACHE_LRU, 0, 0);
    access_one(c, CM_OP_MODIFY, 200, 4);
    access_one(c, CM_OP_MODIFY, 200, 4);
    access_one(c, CM_OP_LOAD, 196, 4);
    access_one(c, CM_OP_ATOMIC, 300, 4); /* read-modify-write as well */
    access_one(c, CM_OP_LOAD, 300, 4);
    const cm_cache_counts *k = cm_cache_get_counts(c);
    ck_assert_uint_eq(k->accesses[CM_OP_MODIFY], 2);
    ck_assert_uint_eq(k->misses[CM_OP_MODIFY], 1);
    ck_assert_uint_eq(k->accesses[CM_OP_LOAD], 2);
    ck_assert_uint_eq(k->misses[CM_OP_LOAD], 0);
    ck_assert_uint_eq(k->accesses[CM_OP_ATOMIC], 1);
    ck_assert_uint_eq(k->misses[CM_OP_ATOMIC], 1);
    ck_assert_uint_eq(k->accesses[CM_OP_STORE], 0);
    cm_cache_free(c);
}
END_TEST

START_TEST(test_bad_geometry)
{
    struct {
        uint64_t size, ways, line;
        const char *want;
    } bad[] = {
        {4096, 4, 48, "power of two"},
        {4096, 4, 0, "power of two"},
        {4096, 0, 64, "ways"},
        {1000, 4, 64, "multiple"},
        {0, 4, 64, "multiple"},
        {4096, 1ull << 60, 64, "ways"},
        {4096, 1ull << 31, 1ull << 40, "multiple"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        cm_cache_config cfg = {bad[i].size, bad[i].ways, bad[i].line,
                               CM_CACHE_LRU, 1, 0};
        cm_cache *c = NULL;
        cm_err err = {0};
        ck_assert_int_eq(cm_cache_new(&cfg, &c, &err), CM_EINPUT);
        ck_assert_ptr_null(c);
        ck_assert_msg(strstr(err.msg, bad[i].want), "case %zu: %s", i,
                      err.msg);
    }
}
END_TEST

START_TEST(test_policy_parse)
{
    const char *names[] = {"lru", "fifo", "random"};
    for (int i = 0; i < 3; i++) {
        cm_cache_policy p = (cm_cache_policy)-1;
        ck_assert_int_eq(cm_cache_policy_parse(names[i], &p, NULL), CM_OK);
        ck_assert_int_eq(p, i);
    }
    cm_cache_policy p = CM_CACHE_FIFO;
    cm_err err = {0};
    ck_assert_int_eq(cm_cache_policy_parse("plru", &p, &err), CM_EINPUT);
    ck_assert_ptr_nonnull(strstr(err.msg, "plru"));
    ck_assert_int_eq(p, CM_CACHE_FIFO);
    ck_assert_int_eq(cm_cache_policy_parse("", &p, &err), CM_EINPUT);
}
END_TEST

Suite *suite_cache(void)
{
    Suite *s = suite_create("cache");
    TCase *tc = tcase_create("cache");
    tcase_add_test(tc, test_lru_and_fifo_differ_on_a_reused_line);
    tcase_add_test(tc, test_cyclic_thrash);
    tcase_add_test(tc, test_sets_not_a_power_of_two);
    tcase_add_test(tc, test_random_replacement);
    tcase_add_test(tc, test_lru_matches_stack_distances);
    tcase_add_test(tc, test_write_allocate);
    tcase_add_test(tc, test_straddling_access_counts_once);
    tcase_add_test(tc, test_modify_counts_once_as_a_read);
    tcase_add_test(tc, test_bad_geometry);
    tcase_add_test(tc, test_policy_parse);
    suite_add_tcase(s, tc);
    return s;
}
