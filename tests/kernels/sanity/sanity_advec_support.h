#pragma once
// The typed fixture shared by the advection sanity tests (test_sanity_advec_*.cpp). It lives
// in a named namespace, not an anonymous one, so that every file's tests of the suite
// AdvecSanity use the same fixture class (gtest requires it of the tests of one suite).
#include <gtest/gtest.h>

namespace sanity {

template <typename T>
class AdvecSanity : public ::testing::Test {};
using Precisions = ::testing::Types<float, double>;
TYPED_TEST_SUITE(AdvecSanity, Precisions);

} // namespace sanity
