/*
 * The libFuzzer entry point every fuzz target defines. With clang and -fsanitize=fuzzer
 * libFuzzer supplies main(); otherwise standalone.c does, replaying a corpus as a test.
 */
#ifndef BP_TESTS_FUZZ_H
#define BP_TESTS_FUZZ_H

#include <stddef.h>
#include <stdint.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#endif
