/* run_tests.c - runs every Check suite under one summary line. */
#include <stdlib.h>

#include "tests/testutil.h"

#define TEST_SUITE(n) Suite *suite_##n(void);
#include "gen/suites.h"
#undef TEST_SUITE

int main(void)
{
    SRunner *sr = NULL;
#define TEST_SUITE(n)                              \
    if (!sr) sr = srunner_create(suite_##n());     \
    else srunner_add_suite(sr, suite_##n());
#include "gen/suites.h"
#undef TEST_SUITE
    if (!sr) return 1;
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
