#pragma once
// The main file of every GPU-backend variant: all per-point kernels plus the traversal.
// The generated program defines the variant's constants, then includes this file.
#include "kernels/advec.cuh"
#include "kernels/boundary.cuh"
#include "kernels/diff.cuh"
#include "kernels/diff_fused.cuh"
#include "kernels/pressure.cuh"
#include "kernels/surface.cuh"
#include "kernels/thermo.cuh"
#include "kernels/timeint.cuh"
#include "src/backends/cuda/traverse.cuh"
