// Definitions of the runtime's test kernels, shared by the unit tests, GPU tests and
// the benchmark.
#pragma once

#include "embedded/runtime_test_sources.h"
#include "runtime/kernel_def.h"

#include <string>

namespace squall::rt::testing {

inline KernelDef saxpy_def(const std::string& type = "float") {
    return KernelDef("saxpy", squall::embedded::runtime_test_sources(),
                     "tests/runtime/kernels/saxpy.cu")
        .tuning_key("saxpy", type)
        .tune("block_x", {32, 64, 128, 256, 512, 1024}, 256)
        .tune("items", {1, 2, 4, 8}, 1)
        .tune("min_blocks", {1, 2, 4}, 1)
        .restriction("block_x * min_blocks <= device.max_threads_per_multiprocessor")
        .restriction("block_x * items <= 4 * problem.x")
        .template_args(type, expr("items"))
        .define("EXTRA_OFFSET", 1)
        .block_size("block_x")
        .grid_divisors("block_x * items")
        .launch_bounds("block_x", "min_blocks")
        .arg_scalar("n", DType::i32)
        .arg_scalar("a", type == "float" ? DType::f32 : DType::f64)
        .arg_array("x", type == "float" ? DType::f32 : DType::f64, Access::in, "n")
        .arg_array("y", type == "float" ? DType::f32 : DType::f64, Access::inout, "n");
}

inline KernelDef stencil_def(const std::string& type = "double") {
    return KernelDef("stencil3d", squall::embedded::runtime_test_sources(), "stencil3d.cu")
        .tuning_key("stencil3d", type)
        .tune("block_x", {16, 32, 64, 128}, 32)
        .tune("block_y", {1, 2, 4, 8}, 4)
        .tune("block_z", {1, 2, 4}, 1)
        .tune("tile_z", {1, 2, 4}, 1)
        .restriction("block_x * block_y * block_z >= 64")
        .restriction("block_x * block_y * block_z <= 1024")
        .template_args(type)
        .define("NX", expr("problem.x"))
        .define("NY", expr("problem.y"))
        .define("NZ", expr("problem.z"))
        .define("TILE_Z", expr("tile_z"))
        .block_size("block_x", "block_y", "block_z")
        .grid_divisors("block_x", "block_y", "block_z * tile_z");
}

inline KernelDef empty_def() {
    return KernelDef("empty_kernel", squall::embedded::runtime_test_sources(), "empty.cu")
        .tune("block_x", {32, 64}, 32)
        .block_size("block_x")
        .grid_size("1");
}

} // namespace squall::rt::testing
