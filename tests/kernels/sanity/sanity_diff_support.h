#pragma once
// The typed fixture shared by the diffusion sanity tests (test_sanity_diff_*.cpp). It lives
// in a named namespace, not an anonymous one, so that every file's tests of the suite
// DiffSanity use the same fixture class (gtest requires it of the tests of one suite).
#include <gtest/gtest.h>

namespace sanity {

template <typename T>
class DiffSanity : public ::testing::Test {};
using Precisions = ::testing::Types<float, double>;
TYPED_TEST_SUITE(DiffSanity, Precisions);

} // namespace sanity
