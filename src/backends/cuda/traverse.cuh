#pragma once
// The GPU backend's traversals, one file per strategy: they map any per-point kernel
// struct from kernels/ onto the CUDA thread hierarchy. Compiled by NVRTC (embedded; the
// generated main file of kernel_defs.cpp includes this one after kernels/), and in parts
// as host C++ by the emulation tests.
//   index_map.cuh  which points each thread owns (host and device: emulated by the tests)
//   tiles.cuh      the generic tiled 3-D traversal: sq_traverse, sq_traverse_flat
//   planes.cuh     the planes traversal (copy-engine boxes, register windows): its
//                  sq_traverse_flat
//   barrier.cuh    mbarrier helpers (planes)
//   columns.cuh    per-column kernels: sq_traverse_2d
//   reduce.cuh     two-pass reductions: sq_reduce, sq_reduce_final
//
// Each compiled variant fixes, as preprocessor defines (the host side: kernel_defs.cpp,
// tiles_def.cpp, planes_def.cpp):
//   SQ_3D | SQ_2D | SQ_REDUCE  which kind of variant it is
//   SQ_I0 SQ_J0 SQ_K0     range offsets          SQ_NI SQ_NJ SQ_NK  range extents
//   SQ_JJ SQ_KK           strides of the fields
//   SQ_BX SQ_BY SQ_BZ     block size             SQ_TX SQ_TY SQ_TZ  points per thread
//   SQ_CX SQ_CY SQ_CZ     1: a thread's tile is contiguous, 0: strided by the block size
//   SQ_PERM               order in which the 1-D block index unravels (0..5)
//   SQ_GROUP              swizzle of that order: blocks of the slowest axis per group
//   SQ_MY SQ_MZ           chunks a block marches through along y and z
//   SQ_UNROLL             1: unroll the tile loops
//   SQ_DEFER              1: compute the whole tile, then store it (kernels with value/store)
//   SQ_PLANES SQ_PLANE_RING  1: the planes traversal with a ring of that many levels; the
//                            block marches SQ_MZ levels
//   SQ_PLANE_CARRY        1: the march carries the z faces (kernels with the z-carry form)
//   SQ_FLAT_PARAMS SQ_FLAT_INIT  the kernel's members as parameters, and the aggregate
//                                initialiser of the struct from them
// plus SQUALL_LAUNCH_BOUNDS from the runtime (threads, blocks per SM).
// Under NVRTC every header is included by its short name, as kernels/ does, so that
// #pragma once sees one file (the in-memory headers exist under several names).
#if defined(__CUDACC_RTC__)
#include "columns.cuh"
#include "index_map.cuh"
#include "planes.cuh"
#include "reduce.cuh"
#include "tiles.cuh"
#else
#include "backends/cuda/columns.cuh"
#include "backends/cuda/index_map.cuh"
#include "backends/cuda/planes.cuh"
#include "backends/cuda/reduce.cuh"
#include "backends/cuda/tiles.cuh"
#endif
