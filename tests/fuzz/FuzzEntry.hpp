// The libFuzzer entry points every harness defines (LLVMFuzzerTestOneInput) or shares (LLVMFuzzerInitialize, in
// FuzzSetup.cpp); the replay runner calls the same two, so a corpus runs identically with and without libFuzzer.
#pragma once

#include <cstddef>
#include <cstdint>

extern "C" int LLVMFuzzerInitialize(int* argc, char*** argv);
extern "C" int LLVMFuzzerTestOneInput(std::uint8_t const* data, std::size_t size);
