/* libfuzzer.c - the libFuzzer entry of one target: built once per target
 * with -DFUZZ_ENTRY=fuzz_<name> (Makefile, `make fuzz`). */
#include "tests/fuzz/fuzz.h"

#ifndef FUZZ_ENTRY
#error "build with -DFUZZ_ENTRY=fuzz_<name>"
#endif

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    return FUZZ_ENTRY(data, size);
}
