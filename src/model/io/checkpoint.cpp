// Checkpoint files in HDF5 (serial library): rank 0 writes, one rank's block at a time.
#include "model/io/checkpoint.h"

#include "model/config/config.h"

#include "model/io/gather_write.h"
#include "model/io/h5.h"

#include <fcntl.h>
#include <unistd.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <bit>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fmt/format.h>
#include <map>
#include <optional>
#include <type_traits>

namespace squall::io {

namespace {

namespace fs = std::filesystem;

using h5::check;
using h5::Id;
using H5Fail = h5::Error;
using gather::Block;
using h5::file_type;
using h5::mem_type;
using h5::read_int_attr;
using h5::read_string_attr;
using h5::write_int_attr;
using h5::write_real_attr;
using h5::write_string_attr;

template <typename T>
void pack_interior(const Field3d<T>& a, std::vector<T>& buf) {
    const GridDims& d = a.dims();
    buf.resize(std::size_t(d.imax) * d.jmax * d.ktot);
    std::size_t n = 0;
    for (int k = d.kstart; k < d.kend; ++k)
        for (int j = d.jstart; j < d.jend; ++j)
            for (int i = d.istart; i < d.iend; ++i) buf[n++] = a(i, j, k);
}

std::uint64_t splitmix64(std::uint64_t x) {
    x += 0x9e3779b97f4a7c15ull;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
    return x ^ (x >> 31);
}

// This rank's share of a field's checksum: the sum, modulo 2^64, of a hash of each interior
// value's bits and its global index. A sum does not depend on the order of its terms, so the
// checksum of the global array is the same on every rank layout (docs/output.md).
template <typename T>
std::uint64_t checksum_share(const Field3d<T>& a) {
    using Bits = std::conditional_t<sizeof(T) == 8, std::uint64_t, std::uint32_t>;
    const GridDims& d = a.dims();
    std::uint64_t sum = 0;
#pragma omp parallel for reduction(+ : sum)
    for (int k = d.kstart; k < d.kend; ++k)
        for (int j = d.jstart; j < d.jend; ++j) {
            const std::uint64_t row = (std::uint64_t(k - d.kstart) * std::uint64_t(d.jtot) +
                                       std::uint64_t(d.joffset + j - d.jstart)) *
                                          std::uint64_t(d.itot) +
                                      std::uint64_t(d.ioffset);
            for (int i = d.istart; i < d.iend; ++i) {
                const std::uint64_t index = row + std::uint64_t(i - d.istart);
                sum += splitmix64(std::uint64_t(std::bit_cast<Bits>(a(i, j, k))) ^
                                  (index * 0xd1b54a32d192ed03ull));
            }
        }
    return sum;
}

// The checksums of the global fields, on every rank.
template <typename T>
std::vector<std::uint64_t> checksums(const std::vector<CheckpointField<T>>& fields,
                                     const Decomposition& dc) {
    std::vector<std::uint64_t> share, total(fields.size());
    for (const auto& f : fields) share.push_back(checksum_share(*f.field));
    MPI_Allreduce(share.data(), total.data(), int(share.size()), MPI_UINT64_T, MPI_SUM, dc.comm);
    return total;
}

void fsync_path(const std::string& path, bool directory) {
    const int fd = ::open(path.c_str(), directory ? O_RDONLY | O_DIRECTORY : O_RDONLY);
    if (fd < 0) throw H5Fail("open for fsync");
    const int rc = ::fsync(fd);
    ::close(fd);
    if (rc != 0 && !directory) throw H5Fail("fsync");
}

// Rank 0's part of write_checkpoint: the file, then each field block by block; `error` names
// the first failed step.
template <typename T>
void write_on_root(const std::string& tmp, const CheckpointInfo& info,
                   const std::vector<CheckpointField<T>>& fields,
                   const std::vector<std::uint64_t>& sums, const Decomposition& dc,
                   const std::vector<Block>& blocks, std::string& error) {
    const h5::Quiet quiet;
    gather::Steps attempt(error);
    std::optional<Id> file, group, dcpl;
    attempt([&] {
        file.emplace(H5Fcreate(tmp.c_str(), H5F_ACC_EXCL, H5P_DEFAULT, H5P_DEFAULT), h5::close_file,
                     "create");
        // No object times in the datasets' headers: the same state gives the same bytes.
        dcpl.emplace(H5Pcreate(H5P_DATASET_CREATE), H5Pclose, "dataset properties");
        check(H5Pset_obj_track_times(*dcpl, false), "dataset properties");
        write_string_attr(*file, "squall_version", SQUALL_VERSION);
        write_string_attr(*file, "precision", info.precision);
        write_string_attr(*file, "backend", info.backend);
        write_string_attr(*file, "case", info.resolved_yaml);
        write_int_attr(*file, "itime", info.itime);
        write_int_attr(*file, "idt", info.idt);
        write_int_attr(*file, "nstep", info.nstep);
        write_real_attr(*file, "time", info.time);
        write_int_attr(*file, "itot", info.itot);
        write_int_attr(*file, "jtot", info.jtot);
        write_int_attr(*file, "ktot", info.ktot);
        write_int_attr(*file, "npx", info.npx);
        write_int_attr(*file, "npy", info.npy);
        const hsize_t nz = info.z.size();
        Id space(H5Screate_simple(1, &nz, nullptr), H5Sclose, "z space");
        Id ds(H5Dcreate2(*file, "z", H5T_IEEE_F64LE, space, H5P_DEFAULT, *dcpl, H5P_DEFAULT),
              H5Dclose, "z");
        check(H5Dwrite(ds, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, info.z.data()), "z");
        ds.close("closing z");
        group.emplace(H5Gcreate2(*file, "fields", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT), H5Gclose,
                      "fields group");
    });
    const hsize_t dims[3] = {hsize_t(info.ktot), hsize_t(info.jtot), hsize_t(info.itot)};
    std::vector<T> buf;
    for (std::size_t n = 0; n < fields.size(); ++n) {
        const auto& f = fields[n];
        std::optional<Id> space, ds;
        attempt([&] {
            space.emplace(H5Screate_simple(3, dims, nullptr), H5Sclose, f.name + " space");
            ds.emplace(H5Dcreate2(*group, f.name.c_str(), file_type<T>(), *space, H5P_DEFAULT,
                                  *dcpl, H5P_DEFAULT),
                       H5Dclose, f.name);
            h5::write_uint_attr(*ds, "checksum", sums[n]);
        });
        gather::write_blocks(attempt, ds, space, 0, info.ktot, f.name, blocks, dc, buf,
                             [&] { pack_interior(*f.field, buf); });
    }
    attempt([&] {
        group->close("closing fields");
        check(H5Fflush(*file, H5F_SCOPE_GLOBAL), "flush");
        file->close("close");
        fsync_path(tmp, false);
    });
}

} // namespace

void fail_hdf5_call_for_testing(long n) {
    h5::fail_injection().at = n;
}

template <typename T>
void write_checkpoint(const std::string& path, const CheckpointInfo& info,
                      const std::vector<CheckpointField<T>>& fields, const Decomposition& dc) {
    const std::vector<std::uint64_t> sums = checksums(fields, dc);
    auto write_root = [&](const std::string& tmp, const std::vector<Block>& blocks,
                          std::string& error) {
        h5::FailInjection& inject = h5::fail_injection();
        inject.count = 0;
        inject.on = true;
        write_on_root(tmp, info, fields, sums, dc, blocks, error);
        inject.on = false;
    };
    auto send = [&] {
        // Blocks go one at a time: rank 0 holds one rank's block besides its own fields.
        std::vector<T> buf;
        for (const auto& f : fields) {
            pack_interior(*f.field, buf);
            MPI_Send(buf.data(), int(buf.size()), mpi_type<T>(), 0, 0, dc.comm);
        }
    };
    auto sync_directory = [&] {
        fsync_path(fs::path(path).parent_path().empty() ? std::string(".")
                                                        : fs::path(path).parent_path().string(),
                   true);
    };
    const std::string error =
        gather::write_file(path, fields.at(0).field->dims(), dc, write_root, send, sync_directory);
    if (!error.empty())
        throw CheckpointError(fmt::format("cannot write checkpoint {}: {} failed; the previous "
                                          "checkpoints are untouched",
                                          path, error));
}

CheckpointInfo read_checkpoint_info(const std::string& path) {
    const h5::Quiet quiet;
    CheckpointInfo info;
    try {
        if (!fs::is_regular_file(path)) throw H5Fail("open (no such file)");
        Id file(H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT), h5::close_file, "open");
        info.precision = read_string_attr(file, "precision");
        info.backend = read_string_attr(file, "backend");
        info.resolved_yaml = read_string_attr(file, "case");
        info.itime = read_int_attr(file, "itime");
        info.idt = read_int_attr(file, "idt");
        info.nstep = long(read_int_attr(file, "nstep"));
        info.itot = int(read_int_attr(file, "itot"));
        info.jtot = int(read_int_attr(file, "jtot"));
        info.ktot = int(read_int_attr(file, "ktot"));
        info.npx = int(read_int_attr(file, "npx"));
        info.npy = int(read_int_attr(file, "npy"));
        info.time = double(info.itime) * 1e-9;
        // A state a run cannot have written (an edited or corrupt file).
        if (info.itime < 0 || info.idt <= 0 || info.nstep < 0)
            throw H5Fail(fmt::format("itime {}, idt {}, nstep {}: not a state a run writes "
                                     "(itime and nstep >= 0, idt > 0)",
                                     info.itime, info.idt, info.nstep));
        Id z(H5Dopen2(file, "z", H5P_DEFAULT), H5Dclose, "z");
        Id zspace(H5Dget_space(z), H5Sclose, "z space");
        info.z.resize(std::size_t(check(H5Sget_simple_extent_npoints(zspace), "z size")));
        check(H5Dread(z, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, info.z.data()), "z");
        Id group(H5Gopen2(file, "fields", H5P_DEFAULT), H5Gclose, "fields group");
        H5G_info_t gi;
        check(H5Gget_info(group, &gi), "fields group");
        for (hsize_t n = 0; n < gi.nlinks; ++n) {
            char name[256] = {};
            check(H5Lget_name_by_idx(group, ".", H5_INDEX_NAME, H5_ITER_INC, n, name, sizeof name,
                                     H5P_DEFAULT),
                  "field name");
            info.fields.push_back(name);
        }
    } catch (const H5Fail& e) {
        throw CheckpointError(fmt::format("cannot read checkpoint {}: {}", path, e.what()));
    }
    return info;
}

template <typename T>
std::size_t read_checkpoint_fields(const std::string& path,
                                   const std::vector<CheckpointField<T>>& fields,
                                   const Decomposition& dc) {
    const h5::Quiet quiet;
    std::string error;
    // The file's checksum of each field (absent: written before checksums), and this rank's
    // share of the checksum of what it read.
    std::vector<std::optional<std::uint64_t>> stored(fields.size());
    std::vector<std::uint64_t> share(fields.size(), 0), total(fields.size(), 0);
    try {
        Id file(H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT), h5::close_file, "open");
        std::vector<T> buf;
        for (std::size_t n = 0; n < fields.size(); ++n) {
            const auto& f = fields[n];
            Field3d<T>& a = *f.field;
            const GridDims& d = a.dims();
            Id ds(H5Dopen2(file, ("fields/" + f.name).c_str(), H5P_DEFAULT), H5Dclose,
                  "field " + f.name);
            if (h5::has_attr(ds, "checksum")) stored[n] = h5::read_uint_attr(ds, "checksum");
            Id space(H5Dget_space(ds), H5Sclose, f.name + " space");
            hsize_t dims[3] = {};
            if (check(H5Sget_simple_extent_ndims(space), f.name) != 3)
                throw H5Fail(f.name + " is not 3-D");
            check(H5Sget_simple_extent_dims(space, dims, nullptr), f.name);
            if (dims[0] != hsize_t(d.ktot) || dims[1] != hsize_t(d.jtot) ||
                dims[2] != hsize_t(d.itot))
                throw H5Fail(fmt::format("{} has {} x {} x {} points, the grid {} x {} x {}",
                                         f.name, dims[2], dims[1], dims[0], d.itot, d.jtot,
                                         d.ktot));
            const hsize_t start[3] = {0, hsize_t(d.joffset), hsize_t(d.ioffset)};
            const hsize_t count[3] = {hsize_t(d.ktot), hsize_t(d.jmax), hsize_t(d.imax)};
            Id mspace(H5Screate_simple(3, count, nullptr), H5Sclose, "memory space");
            check(H5Sselect_hyperslab(space, H5S_SELECT_SET, start, nullptr, count, nullptr),
                  f.name + " block");
            buf.resize(std::size_t(d.imax) * d.jmax * d.ktot);
            check(H5Dread(ds, mem_type<T>(), mspace, space, H5P_DEFAULT, buf.data()),
                  "reading " + f.name);
            std::size_t p = 0;
            for (int k = d.kstart; k < d.kend; ++k)
                for (int j = d.jstart; j < d.jend; ++j)
                    for (int i = d.istart; i < d.iend; ++i) a(i, j, k) = buf[p++];
            share[n] = checksum_share(a);
        }
        file.close("close");
    } catch (const std::exception& e) { // h5::Error, or bad_alloc: never skip the collectives
        error = e.what();
    }
    // Every rank learns whether any failed before the checksums are summed, so that a rank
    // that could not read does not leave the others waiting.
    int failed = error.empty() ? 0 : 1, any_failed = 0;
    MPI_Allreduce(&failed, &any_failed, 1, MPI_INT, MPI_MAX, dc.comm);
    if (any_failed)
        throw CheckpointError(fmt::format("cannot read checkpoint {}: {}", path,
                                          failed ? error : "another rank could not read it"));
    MPI_Allreduce(share.data(), total.data(), int(share.size()), MPI_UINT64_T, MPI_SUM, dc.comm);
    std::size_t unchecked = 0;
    for (std::size_t n = 0; n < fields.size(); ++n) {
        if (!stored[n]) {
            ++unchecked;
        } else if (*stored[n] != total[n]) {
            throw CheckpointError(fmt::format(
                "checkpoint {} is corrupt: field {} does not match its checksum (file {:#018x}, "
                "data {:#018x}); restart from an earlier checkpoint (--restart FILE)",
                path, fields[n].name, *stored[n], total[n]));
        }
    }
    return unchecked;
}

std::string checkpoint_name(const std::string& case_name, std::int64_t itime) {
    return fmt::format("{}.chk.{:020d}.h5", case_name, itime);
}

std::vector<std::string> list_checkpoints(const std::string& dir, const std::string& case_name) {
    std::vector<std::string> r;
    std::error_code ec;
    const std::string prefix = case_name + ".chk.";
    for (const auto& e : fs::directory_iterator(dir.empty() ? "." : dir, ec)) {
        const std::string n = e.path().filename().string();
        // The exact form checkpoint_name() gives: prefix, 20 digits, ".h5".
        if (n.size() == prefix.size() + 23 && n.rfind(prefix, 0) == 0 &&
            n.compare(n.size() - 3, 3, ".h5") == 0 &&
            std::all_of(n.begin() + long(prefix.size()), n.end() - 3,
                        [](char c) { return c >= '0' && c <= '9'; }))
            r.push_back(e.path().string());
    }
    std::sort(r.begin(), r.end());
    return r;
}

std::string latest_checkpoint(const std::string& dir, const std::string& case_name) {
    const auto all = list_checkpoints(dir, case_name);
    if (all.empty())
        throw CheckpointError(fmt::format("--restart latest: no checkpoint of case '{}' ({}) in {}",
                                          case_name, checkpoint_name(case_name, 0),
                                          dir.empty() ? "." : dir));
    return all.back();
}

void prune_checkpoints(const std::string& dir, const std::string& case_name, int keep) {
    const auto all = list_checkpoints(dir, case_name);
    for (std::size_t n = 0; n + std::size_t(std::max(keep, 1)) < all.size(); ++n)
        std::remove(all[n].c_str());
}

bool restart_mutable_key(const std::string& key) {
    // Run control and output, the requested backend and rank layout, the case name, and
    // whether the tendencies are fused: the physics do not depend on them (fused and
    // separate kernels give bitwise the same tendencies).
    return key == "name" || key == "time.endtime" || key == "time.max_steps" ||
           key == "time.walltime_limit" || key.rfind("output.", 0) == 0 || key == "model.backend" ||
           key.rfind("mpi.", 0) == 0 || key == "model.tendencies";
}

namespace {
void flatten(const YAML::Node& n, const std::string& prefix,
             std::map<std::string, std::string>& out) {
    if (n.IsMap()) {
        for (const auto& kv : n)
            flatten(kv.second,
                    prefix.empty() ? kv.first.as<std::string>()
                                   : prefix + "." + kv.first.as<std::string>(),
                    out);
    } else if (n.IsSequence()) {
        std::string s = "[";
        for (std::size_t i = 0; i < n.size(); ++i) s += (i ? ", " : "") + n[i].as<std::string>();
        out[prefix] = s + "]";
    } else {
        out[prefix] = n.IsNull() ? "" : n.as<std::string>();
    }
}
} // namespace

std::vector<std::string> case_differences(const std::string& checkpoint_yaml,
                                          const std::string& case_yaml) {
    std::map<std::string, std::string> a, b;
    flatten(YAML::Load(checkpoint_yaml), "", a);
    flatten(YAML::Load(case_yaml), "", b);
    std::vector<std::string> r;
    for (const auto& [key, va] : a) {
        if (restart_mutable_key(key)) continue;
        const auto it = b.find(key);
        const std::string vb = it == b.end() ? "(absent)" : it->second;
        if (va != vb) r.push_back(fmt::format("{}: checkpoint {}, case {}", key, va, vb));
    }
    // A key the checkpoint's version did not have yet counts as its default there.
    std::map<std::string, std::string> defaults;
    flatten(YAML::Load(default_resolved_yaml()), "", defaults);
    for (const auto& [key, vb] : b) {
        if (restart_mutable_key(key) || a.count(key)) continue;
        const auto d = defaults.find(key);
        if (d == defaults.end() || d->second != vb)
            r.push_back(fmt::format("{}: checkpoint (absent), case {}", key, vb));
    }
    return r;
}

template void write_checkpoint<float>(const std::string&, const CheckpointInfo&,
                                      const std::vector<CheckpointField<float>>&,
                                      const Decomposition&);
template void write_checkpoint<double>(const std::string&, const CheckpointInfo&,
                                       const std::vector<CheckpointField<double>>&,
                                       const Decomposition&);
template std::size_t read_checkpoint_fields<float>(const std::string&,
                                                   const std::vector<CheckpointField<float>>&,
                                                   const Decomposition&);
template std::size_t read_checkpoint_fields<double>(const std::string&,
                                                    const std::vector<CheckpointField<double>>&,
                                                    const Decomposition&);

} // namespace squall::io
