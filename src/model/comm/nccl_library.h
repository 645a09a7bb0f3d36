#pragma once
// NCCL, loaded at run time with dlopen("libnccl.so.2") like the CUDA driver
// (runtime/driver.h), so that no build needs NCCL and a binary without it runs: the GPU
// exchanges then use CUDA IPC or host staging (gpu_transport.h). Nothing links against
// libnccl. The few NCCL types used are declared here with NCCL's documented values
// (stable ABI since NCCL 2.0), so that the build needs no nccl.h; where one is found at
// build time, nccl_library.cpp checks these declarations against it.
#include <cstddef>
#include <string>
#include <vector>

namespace squall::nccl {

using Comm = struct ncclComm*; // ncclComm_t, opaque
using Result = int;            // ncclResult_t, an int-sized enum
using DataType = int;          // ncclDataType_t
using Stream = void*;          // cudaStream_t; nullptr is the legacy default stream

constexpr Result success = 0;      // ncclSuccess
constexpr Result in_progress = 7;  // ncclInProgress
constexpr DataType int8 = 0;       // ncclInt8: the transfers move bytes
constexpr int min_version = 20700; // 2.7.0: the first with ncclSend / ncclRecv

// ncclUniqueId: what rank 0 creates and broadcasts so that the others join its comm.
struct UniqueId {
    char internal[128];
};

// Where to look for libnccl.so.2, in order (see library_candidates()).
struct SearchEnv {
    std::string nccl_lib;     // SQUALL_NCCL_LIB: a file, tried first
    std::string nccl_root;    // NCCL_ROOT: $NCCL_ROOT/lib
    std::string virtual_env;  // VIRTUAL_ENV
    std::string conda_prefix; // CONDA_PREFIX
    std::string home;         // HOME: ~/.local, ~/.pyenv/versions/*
    std::string pyenv_root;   // PYENV_ROOT (default ~/.pyenv)
    bool system_dirs = true;  // /usr/local, /usr and the CUDA toolkit
    bool plain_soname = true; // finally "libnccl.so.2" through the loader's own path
    static SearchEnv from_environment();
};

// The files to try, in order: SQUALL_NCCL_LIB; $NCCL_ROOT/lib; the lib folder of the
// nvidia-nccl-cu* Python wheel in the site- and dist-packages of the Python prefixes
// above and the system ones (globbed); the CUDA toolkit (/usr/local/cuda/lib{,64});
// the plain soname. Only names of existing files are listed, except SQUALL_NCCL_LIB
// and the soname, which dlopen reports on itself.
std::vector<std::string> library_candidates(const SearchEnv& env);

class Library {
public:
    // The process-wide library, searched with SearchEnv::from_environment() once; never
    // throws.
    static const Library& get();
    // Tries the candidates in order and keeps the first that loads and has every entry
    // point (for tests and get()); `searched`, when given, ends the error message (where
    // the search found no file to try).
    explicit Library(const std::vector<std::string>& candidates, const std::string& searched = "");
    ~Library();
    Library(const Library&) = delete;
    Library& operator=(const Library&) = delete;

    bool available() const { return available_; }
    // Why it is unavailable: every path tried with its dlerror() text.
    const std::string& error() const { return error_; }
    const std::string& path() const { return path_; }
    // major * 10000 + minor * 100 + patch, e.g. 22809 for 2.28.9 (also for NCCL < 2.9).
    int version() const { return version_; }
    std::string version_string() const; // "2.28.9"

    // The entry points (all non-null when available()); last_error may be null (NCCL
    // before 2.13).
    Result (*get_version)(int*) = nullptr;
    Result (*get_unique_id)(UniqueId*) = nullptr;
    Result (*comm_init_rank)(Comm*, int, UniqueId, int) = nullptr;
    Result (*comm_destroy)(Comm) = nullptr;
    Result (*comm_abort)(Comm) = nullptr;
    const char* (*get_error_string)(Result) = nullptr;
    const char* (*get_last_error)(Comm) = nullptr;
    Result (*group_start)() = nullptr;
    Result (*group_end)() = nullptr;
    Result (*send)(const void*, std::size_t, DataType, int, Comm, Stream) = nullptr;
    Result (*recv)(void*, std::size_t, DataType, int, Comm, Stream) = nullptr;

    // "ncclSend failed: unhandled cuda error (...)" with the last error text when known.
    std::string describe(Result r, const char* call, Comm comm = nullptr) const;
    // Throws std::runtime_error with describe() for a result other than success.
    void check(Result r, const char* call, Comm comm = nullptr) const;

private:
    void* handle_ = nullptr;
    bool available_ = false;
    int version_ = 0;
    std::string path_, error_;
};

} // namespace squall::nccl
